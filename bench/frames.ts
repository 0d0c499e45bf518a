/**
 * Depth of one `client.quotes.accept` through `sandbox.fetch`: the stack frames in `src/` and the
 * distinct `src/` files they cross when the accept's `conversion.created` event leaves the sandbox
 * (a `sandbox.on('event')` listener takes `new Error().stack`). Runs on the sources (tsx), so the
 * frames name the real files; the figure is structural, not timed, so the machine's load does not move it.
 *
 *   node --import tsx bench/frames.ts [--json] [--stack]
 */
import { fileURLToPath } from 'node:url';
import { PixUsdt } from '../src/index.js';
import { createSandbox } from '../src/sandbox/index.js';

/** The figure: frames in src/, distinct src/ files, and file switches on the stack when the event leaves. */
export interface FrameFigure {
  frames: number;
  files: number;
  /** Frames in src/sandbox only, and the sandbox files they are in. */
  sandboxFrames: number;
  sandboxFiles: number;
  /** How many times control passes from one file to another along the stack (re-entries count). */
  switches: number;
  stack: string[];
}

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Measures one accept and returns its stack, innermost first, limited to src/. */
export async function run(): Promise<FrameFigure> {
  Error.stackTraceLimit = 200;
  const sandbox = createSandbox({ now: '2026-01-01T00:00:00Z', seed: 'frames' });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const user = await client.users.create({ external_id: 'frames', name: 'Frames', document_type: 'cpf', document_number: '52998224725' });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create({ user_id: user.id, source_currency: 'USDT', target_currency: 'BRL', source_amount: '10.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' });
  let captured: string | undefined;
  const listener = (event: { type: string }): void => {
    if (event.type === 'conversion.created' && captured === undefined) captured = new Error().stack;
  };
  sandbox.on('event', listener as never);
  await client.quotes.accept(quote.id);
  sandbox.off('event', listener as never);
  if (captured === undefined) throw new Error('The accept emitted no conversion.created event.');
  const lines = captured.split('\n').slice(1).map((l) => l.trim());
  // The listener's own frame (this file) is not part of the path.
  const stack = lines.filter((l) => l.includes(SRC)).map((l) => l.replace(SRC, 'src/').replace(/^at /, ''));
  const fileOf = (l: string): string => /src\/[^:)]+/.exec(l)?.[0] ?? '';
  const files = stack.map(fileOf);
  const inSandbox = files.filter((f) => f.startsWith('src/sandbox/'));
  const switches = files.filter((f, i) => i > 0 && f !== files[i - 1]).length;
  return { frames: stack.length, files: new Set(files).size, sandboxFrames: inSandbox.length, sandboxFiles: new Set(inSandbox).size, switches, stack };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const figure = await run();
  if (process.argv.includes('--json')) console.log(JSON.stringify(figure, null, 2));
  else {
    console.log(
      `accept through sandbox.fetch: ${figure.frames} frames in src/ across ${figure.files} files (${figure.switches} file switches); ` +
        `in src/sandbox: ${figure.sandboxFrames} frames, ${figure.sandboxFiles} files`,
    );
    if (process.argv.includes('--stack')) for (const line of figure.stack) console.log(`  ${line}`);
  }
}
