// `kiln profile --html`: one self-contained HTML page (inline CSS, JS and SVG written by kiln;
// no network, a Content-Security-Policy forbids any fetch) drawing the profile JSON document it
// embeds -- the same document `kiln profile --json` prints: header, per-op-type bars, a sortable
// per-node table, the timeline of one run, cost against time, and the memory plan.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kiln::cli {

// The page for a profile document (report_json's output).
std::string profile_html(const nlohmann::json& doc);
// Writes it to `path`; throws kiln::Error naming the path when it cannot.
void write_profile_html(const std::string& path, const nlohmann::json& doc);

// The page's script and style (cli/profile_html_page.cpp).
extern const char* const kProfilePageStyle;
extern const char* const kProfilePageScript;

}  // namespace kiln::cli
