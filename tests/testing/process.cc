#include "testing/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace freshet::testing {

ProcessResult RunProcess(const std::vector<std::string>& argv, const std::string& stdin_data) {
  ProcessResult result;
  int in[2], out[2], err[2];
  if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0) return result;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot exec %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  size_t written = 0;
  bool in_open = true;
  if (stdin_data.empty()) {
    close(in[1]);
    in_open = false;
  }
  fcntl(in[1], F_SETFL, O_NONBLOCK);
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    std::vector<pollfd> fds;
    if (out_open) fds.push_back({out[0], POLLIN, 0});
    if (err_open) fds.push_back({err[0], POLLIN, 0});
    if (in_open) fds.push_back({in[1], POLLOUT, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) break;
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == in[1]) {
        ssize_t n = write(in[1], stdin_data.data() + written, stdin_data.size() - written);
        if (n > 0) written += static_cast<size_t>(n);
        if (n < 0 || written == stdin_data.size()) {
          close(in[1]);
          in_open = false;
        }
        continue;
      }
      ssize_t n = read(p.fd, buf, sizeof(buf));
      if (n <= 0) {
        close(p.fd);
        (p.fd == out[0] ? out_open : err_open) = false;
      } else {
        (p.fd == out[0] ? result.out : result.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  if (in_open) close(in[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace freshet::testing
