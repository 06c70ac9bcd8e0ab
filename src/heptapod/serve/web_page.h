// The web page served at GET /: one self-contained HTML file (serve/web/index.html, no scripts or styles
// from elsewhere) compiled into the binary.
#pragma once

#include <string_view>

namespace heptapod {

std::string_view web_page();

}  // namespace heptapod
