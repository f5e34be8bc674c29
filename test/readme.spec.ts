import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The README is a newcomer's page; the design rationale lives in docs/, linked from it. */
describe('README and docs/', () => {
  const readme = readFileSync('README.md', 'utf8');
  const documents = readdirSync('docs').filter((name) => name.endsWith('.md'));

  it('keeps the README to what a newcomer needs: at most 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    for (const heading of ['## The two commands', '## Try it', '## Configuration', '## Administration CLI', '## Where to go next']) expect(readme).toContain(`\n${heading}\n`);
  });

  it('links every document in docs/ from the README', () => {
    expect(documents.length).toBeGreaterThanOrEqual(5);
    for (const name of documents) expect(readme).toContain(`(docs/${name})`);
  });

  it('has no relative link to a file that does not exist', () => {
    for (const file of ['README.md', ...documents.map((name) => join('docs', name))]) {
      const text = readFileSync(file, 'utf8');
      for (const [, target] of text.matchAll(/\]\(((?!https?:)[^)#\s]+)(?:#[^)]*)?\)/g)) {
        expect({ file, target, exists: existsSync(join(dirname(file), target)) }).toEqual({ file, target, exists: true });
      }
    }
  });
});
