// The precompiled header of kiln_ops and kiln_passes (cmake/KilnPrecompile.cmake): the standard
// headers and kiln's core headers nearly every op and pass includes. Build time only; every
// file still includes what it uses.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "core/op.h"
#include "core/tensor.h"
