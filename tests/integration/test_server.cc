#include "tests/integration/test_server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace schedemu::testing {

namespace {

// Reads one line from `fd` within `timeout_ms`; false on EOF or timeout.
bool ReadLine(int fd, std::string* line, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  line->clear();
  while (std::chrono::steady_clock::now() < deadline) {
    char c;
    ssize_t n = read(fd, &c, 1);
    if (n == 1) {
      if (c == '\n') return true;
      line->push_back(c);
      continue;
    }
    if (n == 0) return false;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    return false;
  }
  return false;
}

}  // namespace

std::string SourcePath(const std::string& relative) {
  return std::string(SCHEDEMU_SOURCE_DIR) + "/" + relative;
}

TestServer::TestServer(std::vector<std::string> args) {
  bool has_clock = false;
  for (const auto& a : args) has_clock = has_clock || a == "--clock" || a.rfind("--clock=", 0) == 0;
  std::vector<std::string> argv_s = {SCHEDEMU_BINARY, "serve", "--host",      "127.0.0.1",
                                     "--port",        "0",     "--log-level", "warn"};
  if (!has_clock) {
    argv_s.push_back("--clock");
    argv_s.push_back("manual");
  }
  argv_s.insert(argv_s.end(), args.begin(), args.end());

  int out[2];
  if (pipe(out) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return;
  }
  pid_t pid = fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return;
  }
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    std::vector<char*> argv;
    for (auto& s : argv_s) argv.push_back(s.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  pid_ = pid;
  std::string line;
  if (!ReadLine(out[0], &line, 10000)) {
    ADD_FAILURE() << "schedemu did not print its address";
    close(out[0]);
    return;
  }
  close(out[0]);
  const std::string prefix = "listening on http://127.0.0.1:";
  if (line.rfind(prefix, 0) != 0) {
    ADD_FAILURE() << "unexpected first line: " << line;
    return;
  }
  port_ = std::stoi(line.substr(prefix.size()));
  client_ = std::make_unique<HttpClient>("127.0.0.1", port_);
}

TestServer::~TestServer() { Stop(); }

int TestServer::Stop() {
  if (pid_ <= 0) return -1;
  client_.reset();
  kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 500; ++i) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return -1;
}

std::string TestServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

HttpClientResponse TestServer::Request(const std::string& method, const std::string& target,
                                       const std::map<std::string, std::string>& headers,
                                       const std::string& body) {
  if (!client_) {
    HttpClientResponse r;
    r.error = "server not running";
    return r;
  }
  return client_->Request(method, target, headers, body);
}

HttpClientResponse TestServer::Json(const std::string& method, const std::string& target,
                                    const nlohmann::json& json,
                                    std::map<std::string, std::string> headers) {
  std::string body;
  if (!json.is_null()) {
    body = json.dump();
    headers.emplace("Content-Type", "application/json");
  }
  return Request(method, target, headers, body);
}

void TestServer::Advance(double seconds) {
  HttpClientResponse r =
      Json("POST", "/emulator/v1/clock/advance", nlohmann::json{{"seconds", seconds}});
  EXPECT_EQ(r.status, 200) << r.body << r.error;
}

std::string WriteScenario(const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(SourcePath("examples/default.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json scenario = nlohmann::json::parse(ss.str());
  edit(scenario);
  char path[] = "/tmp/schedemu-scenario-XXXXXX.json";
  int fd = mkstemps(path, 5);
  if (fd < 0) return "";
  std::string text = scenario.dump(2);
  ssize_t written = write(fd, text.data(), text.size());
  close(fd);
  if (written != static_cast<ssize_t>(text.size())) return "";
  return path;
}

std::string RunCommand(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1 </dev/null").c_str(), "r");
  if (p == nullptr) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int st = pclose(p);
  if (status != nullptr) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

}  // namespace schedemu::testing
