// Fixture for cmake/CheckLayers.cmake: a train header including downwards (train -> core) is fine.
// Not part of any build.
#pragma once

#include "heptapod/core/error.h"
