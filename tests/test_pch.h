// The precompiled header of the unit-test executable (tests/CMakeLists.txt,
// kiln_fast_test_build): what most test files include, parsed once per build instead of once per
// file. Only stable, widely used headers belong here; a test still includes what it uses.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/graph.h"
#include "core/state.h"
#include "core/tensor.h"
