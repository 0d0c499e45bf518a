// The README and guides as a partner reads them (issues 10 and 27): the README links to the docs
// by relative links, which GitHub resolves in the repository and npm's page rewrites against the
// `repository` of package.json (docs/ is not in the tarball); each names a file that exists. The
// guides' commands run on any machine with Node (no uuidgen), and no page points at an issue
// number or a reference npm users cannot reach.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from './pack.js';

const read = (path: string) => readFileSync(join(root, path), 'utf8');
const manifest = JSON.parse(read('package.json')) as { repository: { type: string; url: string } };

describe('README.md as GitHub and npm show it', () => {
  const links = [...read('README.md').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  const relative = links.filter((link) => !/^[a-z]+:/.test(link) && !link.startsWith('#'));

  it('links to the docs by relative links, to files that exist', () => {
    expect(relative.filter((link) => link.startsWith('docs/')).length).toBeGreaterThan(5);
    for (const link of relative) expect(existsSync(join(root, link.replace(/#.*$/, ''))), link).toBe(true);
  });

  it('writes no absolute address of the repository (package.json decides it)', () => {
    const absolute = links.filter((link) => /^https?:/.test(link));
    expect(absolute.filter((link) => /github\.com|gitlab\.com/.test(link))).toEqual([]);
  });

  it('has a GitHub repository in package.json, against which npm\'s page resolves the relative links', () => {
    expect(manifest.repository.type).toBe('git');
    expect(manifest.repository.url).toMatch(/^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
  });

  it('says what `npm install`, `npm start` and `npm test` do', () => {
    const text = read('README.md');
    expect(text).toContain('After `npm install`');
    expect(text).toMatch(/npm start +# /);
    expect(text).toMatch(/npm test +# /);
  });
});

describe('the guides', () => {
  const guides = ['README.md', 'docs/quickstart.md', 'docs/sandbox.md', 'docs/client.md', 'docs/server-and-msw.md'];

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
