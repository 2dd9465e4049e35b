#!/usr/bin/env bash
# Installs the Debian packages the integration and end-to-end tests use, when missing:
# OpenSSH server (a real sshd on loopback), rsync and scp (benchmarks), tmux (detached jobs),
# Chromium (VS Code in a headless browser), and a C++ toolchain for code-server's native modules. Needs root for apt-get; says what is missing otherwise.
set -euo pipefail
need=()
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v ssh >/dev/null || need+=(openssh-client)
command -v rsync >/dev/null || need+=(rsync)
command -v tmux >/dev/null || need+=(tmux)
command -v python3 >/dev/null || need+=(python3)
# code-server's native modules build on install (e2e tier)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v rg >/dev/null || need+=(ripgrep)
# a CJK font, so zh-CN screenshots show Chinese instead of empty boxes
{ command -v fc-list >/dev/null && fc-list :lang=zh | grep -q .; } || need+=(fonts-wqy-microhei)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ]; then
  echo "gpu-rent tests need these Debian packages: ${need[*]} (run as root, or: sudo apt-get install ${need[*]})" >&2
  exit 1
fi
echo "installing: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# The package's postinstall tries to start the system sshd and is refused by policy here: harmless.
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null || apt-get install -y -qq --no-install-recommends "${need[@]}"
