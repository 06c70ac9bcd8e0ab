// Training curves as an SVG image, drawn from metrics.jsonl: training loss and validation cross-entropy
// against the update step, and dev BLEU when it was measured.
#pragma once

#include <string>

namespace heptapod {

// Reads a metrics file written by `heptapod train` and writes an SVG with one panel per series. Throws
// Error naming the file and line of a malformed record.
void plot_metrics_svg(const std::string& metrics_path, const std::string& svg_path);

}  // namespace heptapod
