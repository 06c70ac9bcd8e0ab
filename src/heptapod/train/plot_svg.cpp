// A small SVG line-chart writer: linear axes with round tick values, one polyline per series.
#include "heptapod/train/plot_svg.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/data/text_file.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod {

namespace {

struct Series {
  std::string name, color;
  std::vector<std::pair<double, double>> points;
};

struct Panel {
  std::string title;
  std::vector<Series> series;
};

// Round tick spacing for a range: 1, 2 or 5 times a power of ten.
double tick_step(double range) {
  const double raw = range / 5;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

void draw_panel(std::ostringstream& svg, const Panel& panel, double x0, double y0, double w, double h) {
  double xmin = 1e300, xmax = -1e300, ymin = 1e300, ymax = -1e300;
  for (const auto& s : panel.series)
    for (auto [x, y] : s.points) {
      xmin = std::min(xmin, x), xmax = std::max(xmax, x);
      ymin = std::min(ymin, y), ymax = std::max(ymax, y);
    }
  if (xmin > xmax) return;
  if (xmax == xmin) xmax = xmin + 1;
  if (ymax == ymin) ymax = ymin + 1;
  const double pad = 0.05 * (ymax - ymin);
  ymin -= pad, ymax += pad;
  const double L = x0 + 60, R = x0 + w - 20, T = y0 + 30, B = y0 + h - 40;
  auto px = [&](double x) { return L + (x - xmin) / (xmax - xmin) * (R - L); };
  auto py = [&](double y) { return B - (y - ymin) / (ymax - ymin) * (B - T); };
  svg << "<text x='" << (L + R) / 2 << "' y='" << y0 + 18 << "' text-anchor='middle' font-weight='bold'>"
      << panel.title << "</text>\n";
  svg << "<rect x='" << L << "' y='" << T << "' width='" << R - L << "' height='" << B - T
      << "' fill='none' stroke='#888'/>\n";
  const double xs = tick_step(xmax - xmin), ys = tick_step(ymax - ymin);
  for (double x = std::ceil(xmin / xs) * xs; x <= xmax + 1e-9; x += xs)
    svg << "<line x1='" << px(x) << "' y1='" << B << "' x2='" << px(x) << "' y2='" << T
        << "' stroke='#eee'/><text x='" << px(x) << "' y='" << B + 15 << "' text-anchor='middle' font-size='11'>"
        << fmt(x) << "</text>\n";
  for (double y = std::ceil(ymin / ys) * ys; y <= ymax + 1e-9; y += ys)
    svg << "<line x1='" << L << "' y1='" << py(y) << "' x2='" << R << "' y2='" << py(y)
        << "' stroke='#eee'/><text x='" << L - 5 << "' y='" << py(y) + 4 << "' text-anchor='end' font-size='11'>"
        << fmt(y) << "</text>\n";
  svg << "<text x='" << (L + R) / 2 << "' y='" << B + 32 << "' text-anchor='middle' font-size='12'>step</text>\n";
  double legend_y = T + 15;
  for (const auto& s : panel.series) {
    if (s.points.empty()) continue;
    svg << "<polyline fill='none' stroke='" << s.color << "' stroke-width='1.5' points='";
    for (auto [x, y] : s.points) svg << px(x) << "," << py(y) << " ";
    svg << "'/>\n<text x='" << R - 10 << "' y='" << legend_y << "' text-anchor='end' font-size='12' fill='" << s.color
        << "'>" << s.name << "</text>\n";
    legend_y += 15;
  }
}

// A record's field as a number; an Error naming the record when it is something else.
double number_field(const nlohmann::json& record, const char* name, const std::string& where) {
  require(record[name].is_number(), where + ": \"" + name + "\" is not a number");
  return record[name].get<double>();
}

}  // namespace

void plot_metrics_svg(const std::string& metrics_path, const std::string& svg_path) {
  Series train_loss{"train loss (label-smoothed)", "#1f77b4", {}}, train_nll{"train cross-entropy", "#aec7e8", {}};
  Series valid_ce{"dev cross-entropy", "#d62728", {}}, bleu{"dev BLEU", "#2ca02c", {}};
  const std::vector<std::string> lines = read_lines(metrics_path);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const auto j = nlohmann::json::parse(lines[i], nullptr, false);
    const std::string where = metrics_path + ":" + std::to_string(i + 1);
    require(!j.is_discarded() && j.is_object() && j.contains("type") && j.contains("step"),
            where + ": not a metrics record");
    const double step = number_field(j, "step", where);
    if (j["type"] == "train") {
      if (j.contains("loss")) train_loss.points.emplace_back(step, number_field(j, "loss", where));
      if (j.contains("nll")) train_nll.points.emplace_back(step, number_field(j, "nll", where));
    } else if (j["type"] == "valid") {
      if (j.contains("ce")) valid_ce.points.emplace_back(step, number_field(j, "ce", where));
      if (j.contains("bleu")) bleu.points.emplace_back(step, number_field(j, "bleu", where));
    }
  }
  require(!train_loss.points.empty() || !valid_ce.points.empty(), metrics_path + ": no training records to plot");
  std::vector<Panel> panels = {{"Loss (nats per target token)", {train_loss, train_nll, valid_ce}}};
  if (!bleu.points.empty()) panels.push_back({"Dev BLEU", {bleu}});
  const double w = 720, h = 320;
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << w << "' height='" << h * panels.size()
      << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n";
  for (std::size_t p = 0; p < panels.size(); ++p) draw_panel(svg, panels[p], 0, h * p, w, h);
  svg << "</svg>\n";
  const std::string text = svg.str();
  write_file_atomic(svg_path, [&](std::ostream& out) { out << text; });
}

}  // namespace heptapod
