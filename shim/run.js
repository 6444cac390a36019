// Picks the `sluiceway` binary of this release for the runner's platform, checks its
// SHA-256 against dist/SHA256SUMS, and runs it with the step's environment. No
// dependencies: only Node's own modules. A binary whose checksum is not on the list is
// never run.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

// Linux and macOS only: the binary stops a tool and everything it started through Unix
// process groups and signals (ADR 0045).
const TARGETS = {
  'linux x64': 'x86_64-unknown-linux-gnu',
  'linux arm64': 'aarch64-unknown-linux-gnu',
  'darwin x64': 'x86_64-apple-darwin',
  'darwin arm64': 'aarch64-apple-darwin',
};

function fail(message) {
  process.stdout.write(`::error::${message}\n`);
  process.exit(1);
}

function binary() {
  const target = TARGETS[`${process.platform} ${process.arch}`];
  if (!target) {
    fail(
      `Sluiceway has no binary for ${process.platform} on ${process.arch}; it runs on Linux and macOS runners (x64 or arm64).`,
    );
  }
  const dist = path.join(__dirname, '..', 'dist');
  const name = `sluiceway-${target}`;
  const file = path.join(dist, name);
  let sums;
  try {
    sums = fs.readFileSync(path.join(dist, 'SHA256SUMS'), 'utf8');
  } catch (e) {
    fail(`The checksum list dist/SHA256SUMS could not be read (${e.code}); nothing was run.`);
  }
  const expected = sums
    .split('\n')
    .map((line) => line.trim().split(/\s+\*?/))
    .find(([, listed]) => listed === name);
  if (!expected) {
    fail(`dist/SHA256SUMS has no checksum for ${name}; nothing was run.`);
  }
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    fail(`${name} could not be read (${e.code}); nothing was run.`);
  }
  const actual = crypto.createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected[0].toLowerCase()) {
    fail(`${name} does not match its checksum in dist/SHA256SUMS; nothing was run.`);
  }
  fs.chmodSync(file, 0o755);
  return file;
}

// Runs the binary with `extra` added to the step's environment, and exits as it did.
function run(extra) {
  const result = spawnSync(binary(), ['run'], {
    stdio: 'inherit',
    env: { ...process.env, ...extra },
  });
  if (result.error) {
    fail(`sluiceway could not be started (${result.error.code}).`);
  }
  process.exit(result.status === null ? 1 : result.status);
}

module.exports = { run };
