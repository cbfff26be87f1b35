// NNEF model containers: a directory, a .tar or a .tgz/.tar.gz (libarchive), read into memory
// (nothing is ever extracted to disk), and written deterministically.
// Reading is safe against hostile archives: entries with absolute paths, '..' components,
// links or special files are refused, and declared and actual sizes are bounded.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace kiln::nnef {

// Relative path ("graph.nnef", "conv1/weight.dat") -> contents.
using FileMap = std::map<std::string, std::string>;

struct ArchiveLimits {
  uint64_t max_entry_bytes = uint64_t(4) << 30;  // one file
  uint64_t max_total_bytes = uint64_t(8) << 30;  // all files together
  size_t max_entries = 100000;
};

// Reads every regular file of a directory or archive. Throws kiln::Error naming the path and
// the offending entry on anything unsafe or malformed.
FileMap read_container(const std::string& path, const ArchiveLimits& limits = {});
// Same, for a .tar or .tgz archive held in memory; `name` names it in errors.
FileMap read_archive_bytes(std::string_view bytes, const std::string& name,
                           const ArchiveLimits& limits = {});
// True when `path` names an archive (by extension) rather than a directory.
bool is_archive_path(const std::string& path);

// Writes the files as a directory (created if needed) or, when the name ends in .tgz/.tar.gz/
// .tar, as an archive: entries in name order, mtime 0, owner 0:0, mode 0644, no gzip timestamp,
// so equal inputs give byte-identical files.
void write_container(const std::string& path, const FileMap& files);

// Checks that an archive entry name is a safe relative path and returns it normalized
// (no leading "./"); throws otherwise.
std::string checked_entry_path(const std::string& name, const std::string& container);

}  // namespace kiln::nnef
