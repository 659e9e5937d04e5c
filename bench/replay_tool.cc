// The `schedemu replay` command as a standalone executable (same code: server/replay.cc), so the
// benchmarks can replay traces whatever state the main binary's command table is in.
#include "server/replay.h"

int main(int argc, char** argv) { return schedemu::ReplayMain(argc, argv); }
