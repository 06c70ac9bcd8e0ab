// Fixture for cmake/CheckLayers.cmake: a core header including upwards (core -> train) must be rejected.
// Not part of any build.
#pragma once

#include "heptapod/train/trainer.h"
