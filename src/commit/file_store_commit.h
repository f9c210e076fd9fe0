// FileStoreCommit: turns commit messages into a new snapshot, atomically and idempotently, with
// Java Paimon's protocol (write manifests, then publish snapshot-<id> without replacing; retry on
// a concurrent committer).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "meta/manifest/commit_message.h"
#include "meta/manifest/manifest_file.h"
#include "meta/options/core_options.h"
#include "meta/schema/table_schema.h"
#include "meta/snapshot/snapshot_manager.h"

namespace freshet::commit {

// The two snapshots one commit can make, in this order: new files, then compactions.
enum class CommitPart { kAppend, kCompact };

struct CommitRequest {
  std::vector<meta::CommitMessage> messages;
  // Strictly increasing per commit user; batch commits use kBatchCommitIdentifier.
  int64_t identifier = meta::kBatchCommitIdentifier;
  std::map<std::string, std::string> properties;  // stored in the snapshot
  // More snapshot properties computed against the snapshot an attempt builds on (called once
  // per attempt, before it writes anything; its error fails the commit). The seam through which
  // the real-time layer validates and stores its progress.
  std::function<Result<std::map<std::string, std::string>>(const std::optional<meta::Snapshot>&)>
      properties_for_base;
  // Overwrite: replace every live file of the partitions the messages write to (dynamic
  // partition overwrite, Java's default), or of the whole table when `overwrite_all`.
  bool overwrite = false;
  bool overwrite_all = false;
  // An empty append commit makes no snapshot (Java's batch behaviour) unless this is set.
  bool commit_if_empty = false;
};

struct CommitResult {
  // The last snapshot made (the COMPACT one when there are two); nullopt: nothing to commit.
  std::optional<int64_t> snapshot_id;
  bool already_committed = false;  // an earlier attempt with this identifier had landed
  int attempts = 0;                // over both snapshots of the commit
  // Not OK: the compaction part did not commit, while the new files did (so a retry must not
  // commit them again). Conflict: it was refused before publishing (another commit replaced its
  // files first), and the caller deletes its files. Any other error: its outcome is unknown,
  // so its files must stay (the latest snapshot tells whether it landed).
  Status compaction_status;
  // Snapshot expiration runs after a successful commit (unless `write-only`). Its failure does
  // not undo the commit, so it is reported here instead of as the commit's status; the next
  // commit's expiration finishes the job.
  Status expiration;
  int64_t expired_snapshots = 0;
};

class FileStoreCommit {
 public:
  FileStoreCommit(std::shared_ptr<io::FileIO> file_io, std::string table_path,
                  meta::TableSchema schema, meta::CoreOptions options, std::string commit_user);

  // Refuses (before writing any file) tables this committer must not write, see
  // CheckCommitSupported.
  Result<CommitResult> Commit(const CommitRequest& request);

  // NotImplemented when a commit would produce manifests the table's readers cannot read:
  // `manifest.format` other than avro (Java 1.x reads every manifest in that format, and freshet
  // writes Avro manifests only). Table writers check this before writing data files too.
  static Status CheckCommitSupported(const meta::CoreOptions& options);

  const std::string& commit_user() const { return commit_user_; }

  // Called with each snapshot this committer publishes, once it landed: a table's writers have
  // the query caches advanced to it (scan::WarmAfterCommit). It must not throw; it cannot fail
  // the commit.
  using PublishedListener = std::function<void(const meta::Snapshot&)>;
  void OnPublished(PublishedListener listener) { on_published_ = std::move(listener); }

 private:
  // Commits one part, retrying while other committers publish first.
  Status CommitPartWithRetries(const CommitRequest& request, CommitPart part, CommitResult* result);
  // One try on top of `latest`; false when another committer published that id first.
  Result<bool> TryCommitOnce(const CommitRequest& request, CommitPart part,
                             const std::optional<meta::Snapshot>& latest, int64_t* snapshot_id);
  // Conflict when `delta` deletes a file `latest` no longer has, or breaks a level's key order.
  Status CheckConflicts(const std::vector<meta::ManifestEntry>& delta,
                        const std::optional<meta::Snapshot>& latest) const;
  // commit/conflict_check.h, CheckDeletionVectorBase.
  Status CheckIndexBase(const std::vector<meta::IndexManifestEntry>& changes,
                        const std::optional<meta::Snapshot>& latest) const;
  // Whether the overwrite `request` replaces the files of `partition`.
  bool Overwrites(const CommitRequest& request, const std::string& partition) const;
  Result<std::vector<meta::ManifestEntry>> OverwriteDeletes(
      const CommitRequest& request, const std::optional<meta::Snapshot>& latest) const;
  Result<std::vector<meta::IndexManifestEntry>> OverwriteIndexDeletes(
      const CommitRequest& request, const std::optional<meta::Snapshot>& latest) const;
  // The index manifest of the new snapshot: `latest`'s when `changes` is empty, else a new one.
  Result<std::optional<std::string>> WriteIndexManifest(
      meta::ManifestFile& manifests, const std::vector<meta::IndexManifestEntry>& changes,
      const std::optional<meta::Snapshot>& latest) const;
  void ExpireAfterCommit(CommitResult* result) const;
  // Deletes the consumers not updated for `consumer.expiration-time` (when set).
  Status ExpireIdleConsumers() const;
  // Merges the trailing run of small manifests of `base` into one when it holds at least
  // `manifest.merge-min-count` of them, as Java's minor manifest compaction does, so that scans
  // do not read one more manifest after every commit. New files are added to `written`.
  Result<std::vector<meta::ManifestFileMeta>> MergeSmallManifests(
      meta::ManifestFile& manifests, std::vector<meta::ManifestFileMeta> base,
      std::vector<std::string>* written) const;
  // Whether a snapshot newer than `after_id` carries this commit (user, identifier).
  Result<std::optional<int64_t>> FindCommitted(int64_t identifier,
                                               std::optional<int64_t> after_id) const;

  std::shared_ptr<io::FileIO> file_io_;
  std::string table_path_;
  meta::TableSchema schema_;
  meta::CoreOptions options_;
  std::string commit_user_;
  PublishedListener on_published_;
  meta::SnapshotManager snapshots_;
};

}  // namespace freshet::commit
