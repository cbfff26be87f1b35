// The precompiled header of kiln_io (cmake/KilnPrecompile.cmake): the standard headers, fmt and
// kiln's core headers the loaders and writers include. Build time only.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/graph.h"
#include "core/tensor.h"
