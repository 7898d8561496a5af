// The node:test binding, end to end: a project on disk, the real cassette
// binary ($CASSETTE_BIN, else one built here with go), and `node --test`
// run as a child process on test files that drive in-process fakes.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';

const here = path.dirname(fileURLToPath(import.meta.url));
const binding = path.join(here, '..', 'cassette.mjs');
const repo = path.join(here, '..', '..');

let bin = process.env.CASSETTE_BIN;
const scratch = mkdtempSync(path.join(tmpdir(), 'cassette-js-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
before(() => {
  if (!bin) {
    bin = path.join(scratch, 'cassette');
    execFileSync('go', ['build', '-o', bin, './cmd/cassette'], { cwd: repo, stdio: 'inherit' });
  }
});

const day = (delta) => new Date(Date.now() + delta * 86400_000).toISOString().slice(0, 10);

const config = (q) => `version: 1
adapters:
  greet:
    kind: cli
    fake: {in_process: true}
  items:
    kind: http
    fake: {in_process: true}
    normalizers: [uuid]
    contract_headers: [Content-Type]
quarantine:
  greet/flaky: {category: FLAKE-ENV, owner: alice, quarantined: ${q[0]}, expires: ${q[1]}, bead: "#1", evidence: ci/1, repro: node, reason: port race, remove_when: 3 green runs}
`;

const cliCassette = (scenario, args, stdout) => `cassette: 1
version: 2
adapter: greet
scenario: ${scenario}
kind: cli
input:
  command: greet
  args: ${JSON.stringify(args)}
  stdin: "Ada\\n"
  env: [GREET_LANG]
output:
  stdout: ${JSON.stringify(stdout)}
  stderr: ""
  exit_code: 0
interactions: []
`;

// The HTTP cassette the harness tests of every language share.
const items = readFileSync(path.join(repo, 'internal', 'harness', 'testdata', 'create-then-get.yaml'), 'utf8');

// The fakes the test files import: a greeter (the name on stdin, the
// language in GREET_LANG) and an item store that makes its own ids, as a
// fetch handler (WHATWG Request → Response).
const fakes = `
export function greet(args, stdin, env) {
  const name = stdin.toString().trim();
  if (args[0] === 'hello') return { exitCode: 0, stdout: (env.GREET_LANG === 'fr' ? 'Bonjour, ' : 'Hello, ') + name + '!\\n', stderr: '' };
  if (args[0] === 'bye') return { exitCode: 0, stdout: 'Bye, ' + name + '!\\n', stderr: '' };
  if (args[0] === 'flaky') return { exitCode: 0, stdout: 'sometimes\\n', stderr: '' };
  throw new TypeError('no such greeting: ' + args[0]);
}

export function itemStore() {
  const items = new Map();
  return async (req) => {
    const url = new URL(req.url);
    const json = (status, v) => new Response(JSON.stringify(v), { status, headers: { 'Content-Type': 'application/json' } });
    if (req.method === 'POST') {
      const { name } = await req.json();
      const id = crypto.randomUUID();
      items.set(id, name);
      return json(201, { id, name });
    }
    const id = url.pathname.split('/').pop();
    return items.has(id) ? json(200, { id, name: items.get(id) }) : json(404, { error: 'no such item' });
  };
}
`;

// project writes a project with the given test file and runs node --test
// on it; it returns the run's output, exit code and directory.
function project(name, testFile, { quarantine = [day(0), day(7)], env = {}, args = [], more = {} } = {}) {
  const dir = path.join(scratch, name);
  mkdirSync(path.join(dir, 'cassettes', 'greet'), { recursive: true });
  mkdirSync(path.join(dir, 'cassettes', 'items'), { recursive: true });
  writeFileSync(path.join(dir, 'cassette.yaml'), config(quarantine));
  writeFileSync(path.join(dir, 'cassettes', 'greet', 'hello.yaml'), cliCassette('hello', ['hello'], 'Hello, Ada!\n'));
  writeFileSync(path.join(dir, 'cassettes', 'greet', 'bye.yaml'), cliCassette('bye', ['bye'], 'Goodbye, Ada!\n'));
  writeFileSync(path.join(dir, 'cassettes', 'greet', 'flaky.yaml'), cliCassette('flaky', ['flaky'], 'always\n'));
  writeFileSync(path.join(dir, 'cassettes', 'items', 'create-then-get.yaml'), items);
  writeFileSync(path.join(dir, 'fakes.mjs'), fakes);
  writeFileSync(path.join(dir, 'contract.test.mjs'), testFile.replaceAll('BINDING', JSON.stringify(binding)));
  for (const [f, text] of Object.entries(more)) writeFileSync(path.join(dir, f), text.replaceAll('BINDING', JSON.stringify(binding)));
  const childEnv = { ...process.env, CASSETTE_BIN: bin, GREET_LANG: 'en', NO_COLOR: '1', ...env };
  delete childEnv.NODE_TEST_CONTEXT; // set by the runner running this file: the child is a run of its own
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...args, 'contract.test.mjs', ...Object.keys(more)], {
    cwd: dir, encoding: 'utf8', env: childEnv,
  });
  return { out: r.stdout + r.stderr, code: r.status, dir };
}

const greetTest = `
import { contract } from BINDING;
import { greet } from './fakes.mjs';
contract('greet', (c) => c.verifyCLI((c) => greet(c.args, c.stdin, c.env)));
`;

test('cases pass and drift with the located text; quarantine is todo', () => {
  const { out, code, dir } = project('greet', greetTest, { env: { CASSETTE_REPORT_DIR: 'reports' } });
  assert.equal(code, 1, out);
  assert.match(out, /✔ greet\/hello/);
  assert.match(out, /✖ greet\/bye/);
  assert.match(out, /greet\/flaky .*# quarantined until \d{4}-\d\d-\d\d: port race/);
  assert.ok(out.includes('cassettes/greet/bye.yaml:13: body drift at output.stdout: line "Goodbye, Ada!" became "Bye, Ada!"'), out);
  assert.ok(out.includes('  body        output.stdout  (cassettes/greet/bye.yaml:13)'), out);
  assert.match(out, /ℹ pass 1\n.*ℹ fail 1\n/s);
  const summary = JSON.parse(readFileSync(path.join(dir, 'reports', 'summary.json'), 'utf8'));
  assert.equal(summary.reason_code, 'E_CONTRACT_DRIFT');
  assert.equal(summary.next_step, "Run: node --test --test-name-pattern='^greet/bye$' contract.test.mjs");
});

test('the recorded environment names reach the fake', () => {
  const { out, code } = project('env', greetTest, { env: { GREET_LANG: 'fr' }, args: ['--test-name-pattern=hello'] });
  assert.equal(code, 1, out);
  assert.ok(out.includes('line "Hello, Ada!" became "Bonjour, Ada!"'), out);
});

test('an expired quarantine fails the case', () => {
  const { out, code } = project('expired', greetTest, { quarantine: [day(-20), day(-10)], args: ['--test-name-pattern=flaky'] });
  assert.equal(code, 1, out);
  assert.ok(out.includes(`quarantine of greet/flaky expired on ${day(-10)}`), out);
});

test('a fake that throws errors the case, with its own error', () => {
  const { out, code, dir } = project('throws', `
import { contract } from BINDING;
import { greet } from './fakes.mjs';
contract('greet', (c) => c.verifyCLI((c) => greet(['nope'], c.stdin, c.env)));
`, { env: { CASSETTE_REPORT_DIR: 'reports' }, args: ['--test-name-pattern=hello'] });
  assert.equal(code, 1, out);
  assert.match(out, /TypeError.*: no such greeting: nope/);
  assert.equal(JSON.parse(readFileSync(path.join(dir, 'reports', 'summary.json'), 'utf8')).reason_code, 'E_FAKE_ERROR');
});

test('bytes that are not UTF-8', () => {
  const { out, code } = project('bytes', `
import { contract } from BINDING;
contract('greet', (c) => c.verifyCLI(() => ({ exitCode: 0, stdout: Buffer.from([72, 105, 0xff, 10]), stderr: '' })));
`, { args: ['--test-name-pattern=hello'] });
  assert.equal(code, 1, out);
  assert.match(out, /cassettes\/greet\/hello.yaml:\d+: body drift at output.stdout/);
});

test('a line longer than the pipe takes at once, then the next line, each answered in turn', () => {
  // 3 MB of two-byte characters: written in parts (the pipe takes 64 KiB
  // at a time), and its answer read in chunks that may split a character.
  const { out, code } = project('long', `
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Case, project } from BINDING;
test('long then short', async () => {
  const p = project();
  const [hello] = p.cases('greet').cases.filter((c) => c.id === 'greet/hello');
  const long = await new Case(p, hello).checkCLI({ stdout: 'Hello, Ada!\\n' + 'é'.repeat(1500000) + '\\n' });
  assert.equal(long.status, 'fail');
  assert.match(long.text, /body drift at output.stdout/);
  const short = await new Case(p, hello).checkCLI({ stdout: 'Hello, Ada!\\n' });
  assert.equal(short.status, 'pass', short.text);
});
`);
  assert.equal(code, 0, out);
  assert.match(out, /ℹ pass 1\n/);
});

test('an HTTP fake with its own ids', () => {
  const { out, code } = project('items', `
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Case, contract, project } from BINDING;
import { itemStore } from './fakes.mjs';
contract('items', (c) => c.verifyFetch(itemStore()));
contract('items', async (c) => {
  const store = itemStore();
  const r = await c.verifyHTTP(async (req) => {
    const res = await store(req.toFetch());
    return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
  });
  assert.equal(r.file, 'cassettes/items/create-then-get.yaml');
});
test('sent as recorded', async () => {
  const p = project();
  const c = new Case(p, p.cases('items').cases[0]);
  const store = itemStore();
  const responses = [];
  for (const r of c.requests) responses.push(await store(r.toFetch()));
  const result = await c.checkHTTP(responses);
  assert.equal(result.status, 'fail');
  assert.match(result.text, /status drift at interactions\\[1\\]\\.response\\.code/);
});
`);
  assert.equal(code, 0, out);
  assert.match(out, /ℹ pass 3\n/);
});

const unitTest = `
import { test } from 'node:test';
test('unrelated unit', () => {});
`;

test('a set-up problem fails only the contracts that need it, the next step first', () => {
  const nobin = project('nobin', greetTest + unitTest, { env: { CASSETTE_BIN: '/nonexistent/cassette' } });
  assert.equal(nobin.code, 1, nobin.out);
  assert.match(nobin.out, /ℹ pass 1\n.*ℹ fail 1\n/s);
  assert.ok(nobin.out.includes('next: go install github.com/cassette-dev/cassette/cmd/cassette@latest\n'), nobin.out);
  assert.ok(nobin.out.includes('cannot find the cassette binary "/nonexistent/cassette"'), nobin.out);
  assert.doesNotMatch(nobin.out, /^\s+at .*cassette\.mjs/m); // no frames of the binding
  const unknown = project('unknown', `
import { contract } from BINDING;
contract('gret', (c) => c.verifyCLI(() => ({})));
` + unitTest);
  assert.equal(unknown.code, 1, unknown.out);
  assert.match(unknown.out, /✖ gret: set-up/);
  assert.match(unknown.out, /next: cassette /);
  assert.match(unknown.out, /ℹ pass 1\n.*ℹ fail 1\n/s);
});

test('observations for coverage', () => {
  const { out, code, dir } = project('observe', `
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { observeCLI, observeFetch } from BINDING;
import { greet, itemStore } from './fakes.mjs';
test('code under test', async () => {
  const g = observeCLI('greet', (args, { stdin }) => greet(args.slice(0, 1), Buffer.from(stdin), process.env), { test: 'code under test' });
  assert.equal(g(['hello', '--token', process.env.GREET_TOKEN], { stdin: 'Ada\\n' }).stdout, 'Hello, Ada!\\n');
  const store = observeFetch('items', itemStore(), { test: 'code under test' });
  const res = await store(new Request('http://fake.invalid/items?x=1', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"pen"}' }));
  assert.equal(res.status, 201);
});
`, { env: { GREET_TOKEN: 'tok-abcdef-123456' } });
  assert.equal(code, 0, out);
  // One run of the session's own below the project's .cassette/observed.
  const runs = readdirSync(path.join(dir, '.cassette', 'observed'));
  assert.equal(runs.length, 1, runs.join(' '));
  assert.match(runs[0], /^\d{8}T\d{6}\.\d{6}Z-\d+$/);
  const files = readdirSync(path.join(dir, '.cassette', 'observed', runs[0]));
  assert.equal(files.length, 1, files.join(' '));
  const text = readFileSync(path.join(dir, '.cassette', 'observed', runs[0], files[0]), 'utf8');
  assert.ok(!text.includes('tok-abcdef-123456'), text);
  assert.deepEqual(text.trim().split('\n').map((l) => JSON.parse(l)), [
    { v: 1, adapter: 'greet', kind: 'cli', source: 'node', test: 'code under test',
      call: { argv: ['greet', 'hello', '--token', '[REDACTED]'], stdin: true, input: 'Ada\n' } },
    { v: 1, adapter: 'items', kind: 'http', source: 'node', test: 'code under test',
      call: { method: 'POST', url: '/items?x=1', content_type: 'application/json', body: '{"name":"pen"}' } },
  ]);
});

// junitCounts counts the testcases of a junit.xml and those that failed.
function junitCounts(file) {
  const xml = readFileSync(file, 'utf8');
  const cases = xml.split('<testcase ').slice(1);
  return [cases.length, cases.filter((c) => /^[^>]*>\s*<(failure|error)\b/.test(c) ).length];
}

const drifting = `
import { contract } from BINDING;
import { greet } from './fakes.mjs';
contract('greet', (c) => c.verifyCLI((c) => greet(c.args, c.stdin, c.env)));
contract('greet', (c) => c.verifyCLI(() => ({ exitCode: 0, stdout: 'Hi there!\\n', stderr: '' })));
`;

test('the reports hold one result per test, over two fakes and over test files run in parallel', () => {
  // Two contract() calls over the same cases, one fake drifting: each test
  // is a result (the reports kept the last result of each case).
  const one = project('two-fakes', drifting, { env: { CASSETTE_REPORT_DIR: 'reports' }, args: ['--test-name-pattern=hello|bye'] });
  assert.equal(one.code, 1, one.out);
  assert.match(one.out, /ℹ pass 1\n.*ℹ fail 3\n/s);
  assert.equal(JSON.parse(readFileSync(path.join(one.dir, 'reports', 'summary.json'), 'utf8')).exit_code, 1);
  assert.deepEqual(junitCounts(path.join(one.dir, 'reports', 'junit.xml')), [4, 3]);
  // Two test files, each a process of its own writing its own check's
  // reports: the set is merged, whichever finishes last.
  const two = project('two-files', greetTest, {
    env: { CASSETTE_REPORT_DIR: 'reports' }, args: ['--test-name-pattern=hello|bye'],
    more: { 'other.test.mjs': drifting },
  });
  assert.equal(two.code, 1, two.out);
  assert.deepEqual(junitCounts(path.join(two.dir, 'reports', 'junit.xml')), [6, 4]);
  assert.equal(JSON.parse(readFileSync(path.join(two.dir, 'reports', 'summary.json'), 'utf8')).exit_code, 1);
});

test('a test that never verifies fails, and a fake returning nothing is named', () => {
  const { out, code } = project('never', `
import { contract } from BINDING;
contract('greet', (c) => { c.args; });
function fakeGreet() {}
contract('greet', (c) => c.verifyCLI(fakeGreet));
`, { args: ['--test-name-pattern=hello'] });
  assert.equal(code, 1, out);
  assert.ok(out.includes('greet/hello never verified its case: call c.verifyCLI(fake)'), out);
  assert.ok(out.includes('the fake fakeGreet returned undefined: expected { stdout, stderr, exitCode }'), out);
});

test('a test failing after its case passed fails in the reports', () => {
  const { out, code, dir } = project('after', `
import assert from 'node:assert/strict';
import { contract } from BINDING;
import { greet } from './fakes.mjs';
contract('greet', async (c) => {
  const r = await c.verifyCLI((c) => greet(c.args, c.stdin, c.env));
  assert.equal(r.file, 'elsewhere.yaml');
});
`, { env: { CASSETTE_REPORT_DIR: 'reports' }, args: ['--test-name-pattern=hello'] });
  assert.equal(code, 1, out);
  assert.equal(JSON.parse(readFileSync(path.join(dir, 'reports', 'summary.json'), 'utf8')).exit_code, 1);
  assert.deepEqual(junitCounts(path.join(dir, 'reports', 'junit.xml')), [1, 1]);
});

test('listCases lists through the check co-process, as cases() does; a refused project reads as before', () => {
  const { out, code } = project('list', `
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Case, CassetteError, Project } from BINDING;
import { greet } from './fakes.mjs';
test('listing', async (t) => {
  const p = new Project(process.env.CASSETTE_BIN, 'cassette.yaml');
  t.after(() => p.close()); // when an assertion failed
  assert.deepEqual(await p.listCases('greet'), p.cases('greet'));
  assert.equal(await p.close(), undefined); // it only listed: no summary, no reports
  const l = await p.listCases();
  assert.deepEqual(l, p.cases());
  // The case is judged from the load its listing came from: an edit after
  // the listing is not seen (a listing of its own would not be).
  writeFileSync('cassettes/greet/hello.yaml', readFileSync('cassettes/greet/hello.yaml', 'utf8').replace('Hello, Ada!', 'Howdy, Ada!'));
  const r = await new Case(p, l.cases.find((c) => c.id === 'greet/hello')).verifyCLI((c) => greet(c.args, c.stdin, c.env));
  assert.equal(r.file, 'cassettes/greet/hello.yaml');
  assert.equal((await p.close()).checked, 1);
  const unknown = (e) => e instanceof CassetteError && /gret/.test(e.message);
  assert.throws(() => p.cases('gret'), unknown);
  await assert.rejects(p.listCases('gret'), unknown);
  await p.close();
  mkdirSync('broken');
  writeFileSync('broken/cassette.yaml', 'version: 1\\nadapters:\\n  x: {kind: nope}\\n');
  const b = new Project(process.env.CASSETTE_BIN, 'broken/cassette.yaml');
  t.after(() => b.close());
  let sync;
  try { b.cases(); } catch (e) { sync = e; }
  assert.ok(sync instanceof CassetteError, String(sync));
  await assert.rejects(b.listCases(), (e) => e instanceof CassetteError && e.message === sync.message && e.nextStep === sync.nextStep);
  assert.equal(await b.close(), undefined);
});
`);
  assert.equal(code, 0, out);
  assert.match(out, /ℹ pass 1\n/);
});
