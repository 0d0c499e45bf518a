/**
 * The server's TLS material: PEM files given on the command line, or a self-signed
 * certificate generated for the session.
 * @module
 */
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';

/** A certificate and its private key, PEM-encoded. */
export interface TlsMaterial {
  cert: string;
  key: string;
}

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** Reads `--cert` and `--key`. Throws an Error naming the file that could not be read. */
export async function readTlsFiles(certFile: string, keyFile: string): Promise<TlsMaterial> {
  const read = (file: string, flag: string): Promise<string> =>
    readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new Error(`Cannot read ${flag} ${file}: ${error.code ?? error.message}`);
    });
  // One after the other, so that the error names the first bad flag whatever the file system's timing.
  const cert = await read(certFile, '--cert');
  const key = await read(keyFile, '--key');
  return { cert, key };
}

/**
 * A self-signed certificate valid for a day, for localhost, 127.0.0.1, ::1 and the bound host.
 * EC P-256 keeps the generation fast.
 */
export async function generateSelfSigned(host: string): Promise<TlsMaterial> {
  const altNames: Array<{ type: 2; value: string } | { type: 7; ip: string }> = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
  ];
  // The bound host too, unless it is an unspecified address or one of the names already there.
  const named = altNames.some((n) => ('value' in n ? n.value : n.ip) === host);
  if (!UNSPECIFIED.has(host) && !named) altNames.push(isIP(host) === 0 ? { type: 2, value: host } : { type: 7, ip: host });
  const notBeforeDate = new Date(Date.now() - 60_000);
  // Loaded here, not with the module: its import costs about as much CPU as the rest of the
  // binary's start, and only `serve --https` without `--cert` needs it.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'pix-usdt-sandbox' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
