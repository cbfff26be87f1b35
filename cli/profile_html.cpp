#include "cli/profile_html.h"

#include <fstream>

#include "base/error.h"

namespace kiln::cli {

namespace {

// JSON inside a <script> element: '<', '>' and '&' only occur in strings, where \u escapes
// keep the text from closing the element ("</script>") or opening a comment.
std::string script_safe_json(const nlohmann::json& doc) {
  std::string text = doc.dump();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string profile_html(const nlohmann::json& doc) {
  std::string model = doc.value("model", std::string());
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      // Nothing may be fetched: styles and scripts are inline, images data: URIs at most.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
      "<link rel=\"icon\" href=\"data:,\">\n"
      "<title>kiln profile: " +
      html_escape(model) + "</title>\n<style>\n" + kProfilePageStyle +
      "</style>\n</head>\n<body>\n"
      "<header><h1>kiln profile</h1><dl id=\"summary\"></dl></header>\n"
      "<section><h2>Time by op type</h2><div id=\"by-op\"></div></section>\n"
      "<section><h2>Nodes</h2><p class=\"hint\">Click a column to sort; "
      "<span class=\"ref\">reference</span> marks nodes running an op's reference "
      "implementation (codegen declined them). <input id=\"filter\" type=\"search\" "
      "placeholder=\"filter by name, op or kernel\"></p>"
      "<table id=\"nodes\"><thead></thead><tbody></tbody></table></section>\n"
      "<section><h2>Timeline of one run</h2><p class=\"hint\" id=\"timeline-note\"></p>"
      "<div id=\"timeline\" class=\"scroll\"></div></section>\n"
      "<section><h2>Cost against time</h2><p class=\"hint\" id=\"scatter-note\"></p>"
      "<div id=\"scatter\"></div></section>\n"
      "<section><h2>Memory plan</h2><p class=\"hint\" id=\"memory-note\"></p>"
      "<div id=\"memory\" class=\"scroll\"></div></section>\n"
      "<script id=\"kiln-data\" type=\"application/json\">" +
      script_safe_json(doc) + "</script>\n<script>\n" + kProfilePageScript +
      "</script>\n</body>\n</html>\n";
  return page;
}

void write_profile_html(const std::string& path, const nlohmann::json& doc) {
  std::ofstream out(path, std::ios::binary);
  KILN_ENSURE(out, "--html {}: cannot write the file", path);
  out << profile_html(doc);
  KILN_ENSURE(out.good(), "--html {}: write failed", path);
}

}  // namespace kiln::cli
