#include "io/nnef/archive.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "base/error.h"

namespace kiln::nnef {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct ReadArchive {
  archive* a = archive_read_new();
  ~ReadArchive() { archive_read_free(a); }
};
struct WriteArchive {
  archive* a = archive_write_new();
  ~WriteArchive() { archive_write_free(a); }
};

std::string archive_error(archive* a) {
  const char* msg = archive_error_string(a);
  return msg ? msg : "unknown libarchive error";
}

void account(const std::string& container, const std::string& entry, uint64_t size, uint64_t& total,
             size_t& count, const ArchiveLimits& limits) {
  KILN_ENSURE(size <= limits.max_entry_bytes,
              "'{}': entry '{}' declares {} bytes, over the limit of {} bytes per file", container,
              entry, size, limits.max_entry_bytes);
  total += size;
  KILN_ENSURE(total <= limits.max_total_bytes,
              "'{}': files add up to more than the limit of {} bytes", container,
              limits.max_total_bytes);
  KILN_ENSURE(++count <= limits.max_entries, "'{}': more than {} entries", container,
              limits.max_entries);
}

// `bytes`: the archive in memory, or null to read the file `path`.
FileMap read_archive(const std::string& path, const std::string_view* bytes,
                     const ArchiveLimits& limits) {
  ReadArchive r;
  archive_read_support_filter_gzip(r.a);
  archive_read_support_filter_none(r.a);
  archive_read_support_format_tar(r.a);
  const int opened = bytes ? archive_read_open_memory(r.a, bytes->data(), bytes->size())
                           : archive_read_open_filename(r.a, path.c_str(), 1 << 16);
  if (opened != ARCHIVE_OK) fail("cannot open NNEF archive '{}': {}", path, archive_error(r.a));
  FileMap files;
  uint64_t total = 0;
  size_t count = 0;
  for (;;) {
    archive_entry* entry = nullptr;
    int rc = archive_read_next_header(r.a, &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
      fail("'{}': corrupt or truncated archive: {}", path, archive_error(r.a));
    const char* raw_name = archive_entry_pathname(entry);
    std::string name = raw_name ? raw_name : "";
    mode_t type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) {
      checked_entry_path(name, path);
      continue;
    }
    KILN_ENSURE(type == AE_IFREG && archive_entry_hardlink(entry) == nullptr,
                "'{}': entry '{}' is not a regular file (links and special files are refused)",
                path, name);
    std::string rel = checked_entry_path(name, path);
    KILN_ENSURE(!files.count(rel), "'{}': entry '{}' appears twice", path, rel);
    int64_t declared = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    KILN_ENSURE(declared >= 0, "'{}': entry '{}' has a negative size", path, name);
    account(path, rel, static_cast<uint64_t>(declared), total, count, limits);
    std::string data;
    // The declared size is only a claim: reserve no more than the data seen can back.
    data.reserve(static_cast<size_t>(std::min<int64_t>(declared, int64_t{1} << 24)));
    char buf[1 << 16];
    for (;;) {
      la_ssize_t n = archive_read_data(r.a, buf, sizeof buf);
      if (n == 0) break;
      if (n < 0) fail("'{}': cannot read entry '{}': {}", path, rel, archive_error(r.a));
      data.append(buf, static_cast<size_t>(n));
      KILN_ENSURE(data.size() <= static_cast<uint64_t>(declared),
                  "'{}': entry '{}' holds more data than its declared {} bytes", path, rel,
                  declared);
    }
    KILN_ENSURE(data.size() == static_cast<uint64_t>(declared),
                "'{}': entry '{}' is truncated ({} of {} bytes)", path, rel, data.size(), declared);
    files.emplace(rel, std::move(data));
  }
  return files;
}

FileMap read_directory(const std::string& path, const ArchiveLimits& limits) {
  FileMap files;
  uint64_t total = 0;
  size_t count = 0;
  fs::path root(path);
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(root, fs::directory_options::none, ec);
  KILN_ENSURE(!ec, "cannot read NNEF directory '{}': {}", path, ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    KILN_ENSURE(!ec, "cannot read NNEF directory '{}': {}", path, ec.message());
    const auto& entry = *it;
    std::string rel = fs::relative(entry.path(), root).generic_string();
    auto status = entry.symlink_status();
    if (fs::is_directory(status)) continue;
    KILN_ENSURE(fs::is_regular_file(status),
                "'{}': '{}' is not a regular file (links and special files are refused)", path,
                rel);
    uint64_t size = entry.file_size();
    account(path, rel, size, total, count, limits);
    std::ifstream in(entry.path(), std::ios::binary);
    KILN_ENSURE(in.good(), "cannot open '{}'", entry.path().string());
    std::string data(static_cast<size_t>(size), '\0');
    in.read(data.data(), static_cast<std::streamsize>(size));
    KILN_ENSURE(in.gcount() == static_cast<std::streamsize>(size), "cannot read '{}'",
                entry.path().string());
    files.emplace(rel, std::move(data));
  }
  return files;
}

}  // namespace

std::string checked_entry_path(const std::string& name, const std::string& container) {
  KILN_ENSURE(!name.empty(), "'{}': an entry has an empty name", container);
  KILN_ENSURE(
      name[0] != '/' && name.find('\\') == std::string::npos && name.find(':') == std::string::npos,
      "'{}': entry '{}' has an absolute or non-portable path", container, name);
  std::string out;
  std::stringstream parts(name);
  std::string part;
  while (std::getline(parts, part, '/')) {
    if (part.empty() || part == ".") continue;
    KILN_ENSURE(part != "..", "'{}': entry '{}' escapes the archive with '..'", container, name);
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

bool is_archive_path(const std::string& path) {
  return ends_with(path, ".tgz") || ends_with(path, ".tar.gz") || ends_with(path, ".tar");
}

FileMap read_container(const std::string& path, const ArchiveLimits& limits) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return read_directory(path, limits);
  KILN_ENSURE(fs::is_regular_file(path, ec), "NNEF model '{}' is neither a directory nor a file",
              path);
  return read_archive(path, nullptr, limits);
}

FileMap read_archive_bytes(std::string_view bytes, const std::string& name,
                           const ArchiveLimits& limits) {
  return read_archive(name, &bytes, limits);
}

void write_container(const std::string& path, const FileMap& files) {
  if (!is_archive_path(path)) {
    std::error_code ec;
    fs::create_directories(path, ec);
    KILN_ENSURE(!ec, "cannot create directory '{}': {}", path, ec.message());
    for (const auto& [name, data] : files) {
      fs::path target = fs::path(path) / checked_entry_path(name, path);
      fs::create_directories(target.parent_path(), ec);
      std::ofstream out(target, std::ios::binary | std::ios::trunc);
      out.write(data.data(), static_cast<std::streamsize>(data.size()));
      KILN_ENSURE(out.good(), "cannot write '{}'", target.string());
    }
    return;
  }
  WriteArchive w;
  archive_write_set_format_pax_restricted(w.a);
  if (!ends_with(path, ".tar")) {
    archive_write_add_filter_gzip(w.a);
    // No timestamp in the gzip header: equal inputs give equal bytes.
    archive_write_set_filter_option(w.a, "gzip", "timestamp", nullptr);
  }
  if (archive_write_open_filename(w.a, path.c_str()) != ARCHIVE_OK)
    fail("cannot create '{}': {}", path, archive_error(w.a));
  std::unique_ptr<archive_entry, void (*)(archive_entry*)> entry(archive_entry_new(),
                                                                 archive_entry_free);
  for (const auto& [name, data] : files) {
    archive_entry_clear(entry.get());
    archive_entry_set_pathname(entry.get(), checked_entry_path(name, path).c_str());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), static_cast<la_int64_t>(data.size()));
    archive_entry_set_mtime(entry.get(), 0, 0);
    archive_entry_set_uid(entry.get(), 0);
    archive_entry_set_gid(entry.get(), 0);
    if (archive_write_header(w.a, entry.get()) != ARCHIVE_OK)
      fail("cannot write '{}' into '{}': {}", name, path, archive_error(w.a));
    if (!data.empty() &&
        archive_write_data(w.a, data.data(), data.size()) != static_cast<la_ssize_t>(data.size()))
      fail("cannot write '{}' into '{}': {}", name, path, archive_error(w.a));
  }
  if (archive_write_close(w.a) != ARCHIVE_OK)
    fail("cannot finish '{}': {}", path, archive_error(w.a));
}

}  // namespace kiln::nnef
