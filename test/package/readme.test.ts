// The README and guides as a partner reads them after `npm install` (issue 10): docs/ is not in
// the tarball, so the README links to the repository by absolute URL; each link names a file
// that exists here. The guides' commands run on any machine with Node (no uuidgen), and no page
// points at an issue number or a reference npm users cannot reach.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './pack.js';

const read = (path: string) => readFileSync(join(root, path), 'utf8');
const manifest = JSON.parse(read('package.json')) as { repository: { url: string } };
const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

describe('README.md as npm shows it', () => {
  const links = [...read('README.md').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);

  it('links to the docs by absolute URL, into the repository package.json names', () => {
    const docs = links.filter((link) => link.includes('docs/'));
    expect(docs.length).toBeGreaterThan(5);
    for (const link of docs) expect(link.startsWith(`${repository}/blob/main/docs/`), link).toBe(true);
  });

  it('links only to files that exist in the repository', () => {
    for (const link of links.filter((l) => l.startsWith(`${repository}/blob/main/`))) {
      const path = link.slice(`${repository}/blob/main/`.length).replace(/#.*$/, '');
      expect(existsSync(join(root, path)), link).toBe(true);
    }
  });

  it('has no relative link (it would break on npm and in node_modules)', () => {
    expect(links.filter((link) => !/^[a-z]+:/.test(link) && !link.startsWith('#'))).toEqual([]);
  });

  it('says what `npm install`, `npm start` and `npm test` do', () => {
    const text = read('README.md');
    expect(text).toContain('After `npm install`');
    expect(text).toMatch(/npm start +# /);
    expect(text).toMatch(/npm test +# /);
  });
});

describe('the guides', () => {
  const guides = ['README.md', 'docs/quickstart.md', 'docs/sandbox.md', 'docs/client.md', 'docs/server-and-msw.md', 'docs/testing.md'];

  it.each(guides)('%s uses no command missing from common machines (uuidgen)', (guide) => {
    expect(read(guide)).not.toMatch(/\buuidgen\b/);
  });

  it.each(guides)('%s points at pages, not at issue numbers', (guide) => {
    expect(read(guide)).not.toMatch(/\bissue \d+/i);
  });

  it('docs/client.md does not send npm users to the generated API reference as a link', () => {
    expect(read('docs/client.md')).not.toMatch(/\]\(api\//);
  });
});
