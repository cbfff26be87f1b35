// The precompiled header of the kiln executable (cmake/KilnPrecompile.cmake): CLI11, JSON, fmt,
// spdlog and the core headers the subcommands include. Build time only.
#pragma once

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/graph.h"
#include "core/tensor.h"
