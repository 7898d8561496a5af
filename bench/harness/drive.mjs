// The harness protocol from Node, without a test runner: the binding
// (js/cassette.mjs) lists the cases through one `cassette check` co-process
// (listCases: a "cases" line) and judges each through it, one line and its
// answer at a time, as a node:test test does; the fake is an in-process echo. Run in
// the project's directory by bench/check-batch.sh (DRIVERS=1) with
// CASSETTE_BIN set: node drive.mjs REPO.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const { Project, Case } = await import(pathToFileURL(path.join(process.argv[2], 'js', 'cassette.mjs')).href);
const p = new Project(process.env.CASSETTE_BIN, 'cassette.yaml');
let n = 0;
for (const c of (await p.listCases()).cases) {
  const r = await new Case(p, c).runCLI((k) => ({ exitCode: 0, stdout: `${k.args.join(' ')}\n`, stderr: '' }));
  if (!r.passed) throw new Error(r.text);
  n += 1;
}
const s = await p.close();
if (s.passed !== n) throw new Error(JSON.stringify(s));
console.log(n, 'passed');
