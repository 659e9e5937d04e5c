#include "scheduler/config.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace schedemu {

std::string SlurmClusterConfig::ResourceName() const {
  return absl::StrCat("projects/", project, "/locations/", location, "/modelDevelopmentClusters/",
                      name);
}

}  // namespace schedemu
