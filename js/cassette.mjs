// cassette's binding for Node's built-in test runner (node:test): verify
// in-process fakes against cassettes. No dependencies.
//
//   import { contract } from 'cassette-node-test';
//   contract('git', (c) => c.verifyCLI((c) => new FakeGit().run(c.args, { cwd: c.cwd })));
//
// contract() registers one test per cassette of the adapter; each drives
// the fake with its case and fails with cassette's drift text (the same
// text, classes and file:line as `cassette verify`). The cassette binary
// does all the judging: `cassette cases --json`, then one `cassette check`
// co-process per test file. See the README of the repository, "Verify from
// your test runner", for the protocol.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  accessSync, appendFileSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';

export const PROTOCOL = 1;
export const CONFIG_FILE = 'cassette.yaml';

/** The cassette binary could not be run or answered out of protocol. */
export class CassetteError extends Error {
  constructor(message, nextStep) {
    super(message);
    this.name = 'CassetteError';
    this.nextStep = nextStep;
  }

  /** The error as a person reads it: the next step first. */
  text() {
    return this.nextStep ? `next: ${this.nextStep}\n${this.message}` : this.message;
  }
}

// The error of a cassette command that refused: its --json error object
// on stdout (message, problems, next_step).
function refusal(e, argv) {
  try {
    const o = JSON.parse(String(e.stdout));
    const lines = [`${argv.join(' ')}: ${o.message}`];
    for (const p of o.problems || []) {
      lines.push(`  ${p.file || ''}${p.line ? `:${p.line}` : ''}: ${p.field || ''}: ${p.message || ''}${p.suggestion ? `; ${p.suggestion}` : ''}`);
    }
    return new CassetteError(lines.join('\n'), o.next_step);
  } catch {
    return new CassetteError(`${argv.join(' ')} failed (exit ${e.status}):\n${String(e.stderr || e.message).trim()}`);
  }
}

/** A case failed: message is cassette's text (file:line, then the drift). */
export class CassetteDrift extends Error {
  constructor(result) {
    super(result.text);
    this.name = 'CassetteDrift';
    // Not enumerable: node prints an error's own enumerable fields after
    // its text, and the text is what the reader needs.
    Object.defineProperty(this, 'result', { value: result, enumerable: false });
    // The one frame worth showing is the cassette's line (our frames are
    // not the story, and without a frame node brackets the text).
    this.stack = `${this.name}: ${this.message}\n    at ${result.path}:${result.line}`;
  }
}

/** The cassette binary: explicit, else $CASSETTE_BIN, else cassette on PATH. */
export function findBinary(explicit) {
  const name = explicit || process.env.CASSETTE_BIN || 'cassette';
  const candidates = name.includes(path.sep)
    ? [name]
    : (process.env.PATH || '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, name));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return path.resolve(c);
    } catch {
      // not this one
    }
  }
  throw new CassetteError(`cannot find the cassette binary ${JSON.stringify(name)}: install it, or name it with CASSETTE_BIN`,
    'go install github.com/cassette-dev/cassette/cmd/cassette@latest');
}

/** The nearest cassette.yaml in dir or above it, or undefined. */
export function findConfig(dir) {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const p = path.join(d, CONFIG_FILE);
    if (existsSync(p)) return p;
    if (path.dirname(d) === d) return undefined;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// A string or bytes as the protocol's text field: {name} when UTF-8,
// {name_base64} when not.
export function textField(value, name) {
  if (value === undefined || value === null) return { [name]: '' };
  if (typeof value === 'string') return { [name]: value };
  const bytes = value instanceof Uint8Array ? value : new Uint8Array(value);
  try {
    return { [name]: utf8.decode(bytes) };
  } catch {
    return { [`${name}_base64`]: Buffer.from(bytes).toString('base64') };
  }
}

function textValue(obj, name) {
  const b64 = obj[`${name}_base64`];
  return b64 ? Buffer.from(b64, 'base64') : Buffer.from(obj[name] || '', 'utf8');
}

/**
 * One cassette.yaml: its cases, and the `cassette check` co-process that
 * judges what the fakes produced. The binary runs in the config's
 * directory with the config's base name, so that the paths in its answers
 * read as those of `cassette verify` run there.
 */
export class Project {
  constructor(binary, config, { reportDir } = {}) {
    this.binary = binary;
    this.config = path.resolve(config);
    this.dir = path.dirname(this.config);
    this.reportDir = reportDir ? path.resolve(reportDir) : undefined;
    this.checker = undefined;
    this.judged = false; // a line other than a listing was sent
  }

  argv(...args) {
    return ['--config', path.basename(this.config), ...args];
  }

  /**
   * The listing of `cassette cases --json` (for one adapter), synchronously:
   * a `cassette cases` process of its own, and the check co-process loads
   * the cassettes again. listCases() is the faster way.
   */
  cases(adapter) {
    const args = ['cases', '--json', ...(adapter ? ['--adapter', adapter] : [])];
    let out;
    try {
      out = execFileSync(this.binary, this.argv(...args), { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
    } catch (e) {
      throw refusal(e, ['cassette', ...args]);
    }
    return speaks(JSON.parse(out));
  }

  /**
   * The same listing, asked of the check co-process (a "cases" line), which
   * then judges the cases from the cassettes it loaded for it: they are
   * loaded once. When check cannot answer (the project is refused),
   * `cassette cases --json` says why, as cases() does.
   */
  async listCases(adapter) {
    let answer;
    try {
      answer = await this.send(adapter ? { type: 'cases', adapter } : { type: 'cases' });
    } catch (e) {
      if (!(e instanceof CassetteError)) throw e;
    }
    if (answer && answer.type === 'cases') {
      delete answer.type;
      return speaks(answer);
    }
    return this.cases(adapter);
  }

  startChecker() {
    const args = ['check', ...(this.reportDir ? ['--report-dir', this.reportDir] : [])];
    const child = spawn(this.binary, this.argv(...args), { cwd: this.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    const ck = { child, waiting: [], lines: [], stderr: '', partial: [], exited: undefined };
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s) => { ck.stderr += s; });
    // Answers are split into lines on the bytes as they come (an answer is
    // usually one chunk; a listing, many, joined once its newline comes).
    child.stdout.on('data', (b) => {
      let start = 0;
      for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, start)) {
        let line;
        if (ck.partial.length > 0) {
          ck.partial.push(b.subarray(start, i));
          line = Buffer.concat(ck.partial).toString('utf8');
          ck.partial = [];
        } else {
          line = b.toString('utf8', start, i);
        }
        start = i + 1;
        if (line.trim() === '') continue;
        const msg = JSON.parse(line);
        const w = ck.waiting.shift();
        if (w) w.resolve(msg);
        else ck.lines.push(msg);
      }
      if (start < b.length) ck.partial.push(b.subarray(start));
    });
    child.stdin.on('error', () => {}); // a dead checker is reported by 'close'
    ck.closed = new Promise((resolve) => {
      child.on('close', (code) => {
        ck.exited = code;
        const err = new CassetteError(`cassette check ended (exit ${code}): ${ck.stderr.trim()}`);
        for (const w of ck.waiting.splice(0)) w.reject(err);
        resolve(code);
      });
    });
    child.on('error', (e) => { ck.stderr += String(e); });
    return ck;
  }

  /** Send one line to the check co-process; resolve to its answer. */
  ask(line) {
    this.judged = true;
    return this.send(line);
  }

  send(line) {
    if (!this.checker || this.checker.exited !== undefined) this.checker = this.startChecker();
    const ck = this.checker;
    return new Promise((resolve, reject) => {
      ck.waiting.push({ resolve, reject });
      writeLine(ck.child.stdin, `${JSON.stringify(line)}\n`);
    });
  }

  /** End the check co-process; resolve to its summary (undefined when no case was checked). */
  async close() {
    const ck = this.checker;
    const { judged } = this;
    this.checker = undefined;
    this.judged = false;
    if (!ck) return undefined;
    if (!judged) { // it only listed: no reports of no case
      ck.child.kill();
      await ck.closed;
      return undefined;
    }
    const summary = new Promise((resolve, reject) => ck.waiting.push({ resolve, reject }));
    ck.child.stdin.end();
    const s = await summary;
    await ck.closed;
    return s;
  }
}

// writeLine writes a line to the checker's stdin: with one write on its
// file descriptor when nothing is queued on the stream (what a line at a
// time always finds), else, and for what a full pipe did not take, through
// the stream, which keeps the order.
function writeLine(stdin, s) {
  const fd = stdin._handle && stdin._handle.fd;
  if (typeof fd === 'number' && fd >= 0 && stdin.writableLength === 0 && !stdin.writableEnded) {
    let n = 0;
    try {
      n = writeSync(fd, s);
    } catch (e) {
      if (e.code !== 'EAGAIN') return; // a dead checker is reported by 'close'
    }
    if (n < Buffer.byteLength(s, 'utf8')) stdin.write(Buffer.from(s, 'utf8').subarray(n));
    return;
  }
  stdin.write(s);
}

// A listing, when this binding speaks its protocol.
function speaks(listing) {
  if (listing.protocol !== PROTOCOL) {
    throw new CassetteError(`cassette speaks harness protocol ${listing.protocol}; this binding speaks ${PROTOCOL}: ` +
      'use a cassette and a binding of one release');
  }
  return listing;
}

/** One request for an HTTP fake. */
export class Request {
  constructor(r) {
    this.method = r.method;
    this.target = r.target;
    this.url = r.url;
    [this.path, this.query = ''] = r.target.split(/\?(.*)/s);
    this.headers = r.headers || {}; // name → [values]
    this.body = textValue(r, 'body');
  }

  header(name) {
    const k = Object.keys(this.headers).find((h) => h.toLowerCase() === name.toLowerCase());
    return k === undefined ? undefined : this.headers[k][0];
  }

  /** The request as a WHATWG Request (for fetch-style handlers). */
  toFetch(base = 'http://fake.invalid') {
    const headers = new Headers();
    for (const [k, vs] of Object.entries(this.headers)) for (const v of vs) headers.append(k, v);
    const hasBody = !['GET', 'HEAD'].includes(this.method) && this.body.length > 0;
    return new globalThis.Request(base + this.target, { method: this.method, headers, body: hasBody ? this.body : undefined });
  }
}

// A fake's response as the protocol's: from {status, headers, body} (headers
// an object or entries; body a string or bytes) or a WHATWG Response.
async function responseOf(r) {
  r = await r;
  let headers;
  let body;
  if (typeof r.arrayBuffer === 'function' && r.headers && typeof r.headers.entries === 'function') {
    headers = [...r.headers.entries()];
    body = new Uint8Array(await r.arrayBuffer());
  } else {
    headers = Array.isArray(r.headers) ? r.headers : Object.entries(r.headers || {});
    body = r.body;
  }
  const out = { status: Number(r.status), headers: {} };
  if (r.statusText) out.reason = r.statusText;
  for (const [k, v] of headers) (out.headers[k] ||= []).push(...(Array.isArray(v) ? v.map(String) : [String(v)]));
  return { ...out, ...textField(body, 'body') };
}

/** The verdict of `cassette check` on one case. */
export class Result {
  constructor(answer, dir = '') {
    Object.assign(this, answer);
    this.passed = answer.status === 'pass';
    this.path = path.join(dir, answer.file); // the cassette, absolute
  }
}

/**
 * One case of an adapter, as the listing gives it. A CLI case has args,
 * stdin (a Buffer), env (the recorded names with their values here), cwd
 * and command; an HTTP case has requests.
 */
export class Case {
  constructor(project, c, replay = '', test = '') {
    this.project = project;
    this.test = test;
    this.checked = false;
    this.raw = c;
    this.id = c.id;
    this.adapter = c.adapter;
    this.scenario = c.scenario;
    this.kind = c.kind;
    this.file = c.file;
    this.line = c.line;
    this.quarantine = c.quarantine;
    this.replay = replay;
    if (c.cli) {
      this.command = c.cli.command;
      this.args = [...c.cli.args];
      this.stdin = textValue(c.cli, 'stdin');
      const env = {};
      for (const n of c.cli.env) if (n in process.env) env[n] = process.env[n];
      this.env = env;
      this.cwd = c.cli.dir;
    }
    this.requests = c.http ? c.http.requests.map((r) => new Request(r)) : [];
  }

  lineOf(fields) {
    const line = { id: this.id, file: this.file };
    if (this.replay) line.replay = this.replay;
    if (this.test) line.test = this.test;
    return Object.assign(line, fields);
  }

  async judge(fields) {
    this.checked = true;
    const answer = await this.project.ask(this.lineOf(fields));
    if (answer.type !== 'result') throw new CassetteError(answer.message || JSON.stringify(answer));
    this.last = new Result(answer, this.project.dir);
    return this.last;
  }

  /** Judge a CLI fake's output; resolve to the Result. */
  checkCLI({ stdout = '', stderr = '', exitCode = 0 } = {}, durationMS) {
    const cli = { exit_code: exitCode };
    // the usual string output set at once; bytes as textField says
    if (typeof stdout === 'string') cli.stdout = stdout;
    else Object.assign(cli, textField(stdout, 'stdout'));
    if (typeof stderr === 'string') cli.stderr = stderr;
    else Object.assign(cli, textField(stderr, 'stderr'));
    const fields = { cli };
    if (durationMS !== undefined) fields.duration_ms = durationMS;
    return this.judge(fields);
  }

  /** Judge an HTTP fake's responses, in request order; resolve to the Result. */
  async checkHTTP(responses, durationMS) {
    const http = { responses: await Promise.all(responses.map(responseOf)) };
    return this.judge({ http, ...(durationMS !== undefined ? { duration_ms: durationMS } : {}) });
  }

  /** Record that the fake could not answer at all. */
  checkError(message, durationMS) {
    return this.judge({ error: message, ...(durationMS !== undefined ? { duration_ms: durationMS } : {}) });
  }

  /** The request to send after these responses, with the fake's own ids. */
  async nextRequest(responses) {
    if (responses.length === 0) return this.requests[0];
    const http = { responses: await Promise.all(responses.map(responseOf)) };
    const answer = await this.project.ask(this.lineOf({ type: 'next', http }));
    if (answer.type !== 'request') throw new CassetteError(answer.message || JSON.stringify(answer));
    return new Request(answer.request);
  }

  /** Call fake(case) → {stdout, stderr, exitCode} (or status/code); resolve to the Result. */
  async runCLI(fake) {
    const t0 = performance.now();
    let r;
    try {
      r = await fake(this);
    } catch (e) {
      await this.checkError(`the fake threw ${e && e.stack ? e.stack.split('\n')[0] : e}`, performance.now() - t0);
      throw e;
    }
    if (r === null || typeof r !== 'object') {
      const msg = `the fake ${fakeName(fake)} returned ${String(r)}: expected { stdout, stderr, exitCode } (or a spawnSync result)`;
      await this.checkError(msg, performance.now() - t0);
      throw new TypeError(msg);
    }
    const exitCode = r.exitCode ?? r.status ?? r.code ?? 0;
    return this.checkCLI({ stdout: r.stdout, stderr: r.stderr, exitCode }, performance.now() - t0);
  }

  /** Send each request to handler(Request) → response; resolve to the Result. */
  async runHTTP(handler) {
    const t0 = performance.now();
    const responses = [];
    try {
      for (let i = 0; i < this.requests.length; i++) {
        const r = await handler(await this.nextRequest(responses));
        if (r === null || typeof r !== 'object') {
          throw new TypeError(`the fake ${fakeName(handler)} returned ${String(r)} for request ${i + 1}: expected { status, headers, body } or a Response`);
        }
        responses.push(await responseOf(r));
      }
    } catch (e) {
      await this.checkError(`the fake threw ${e && e.stack ? e.stack.split('\n')[0] : e}`, performance.now() - t0);
      throw e;
    }
    return this.checkHTTP(responses, performance.now() - t0);
  }

  /** Drive a CLI fake and fail (throw CassetteDrift) on a blocking drift. */
  async verifyCLI(fake) { return enforce(await this.runCLI(fake)); }

  /** Drive an HTTP fake: handler(Request) → {status, headers, body} or a WHATWG Response. */
  async verifyHTTP(handler) { return enforce(await this.runHTTP(handler)); }

  /** Drive a fetch-style handler (WHATWG Request → Response), e.g. app.fetch. */
  async verifyFetch(fetchHandler) { return enforce(await this.runHTTP((r) => fetchHandler(r.toFetch()))); }
}

// A fake as a person names it: its function's name, else "an anonymous function".
function fakeName(f) {
  return f && f.name ? f.name : 'an anonymous function';
}

/**
 * End a case as the verdict says: a pass returns the Result; a blocking
 * failure throws CassetteDrift; a failure a quarantine entry covers
 * returns the Result (contract() marks such a case todo, so node reports
 * it without failing the run).
 */
export function enforce(result) {
  if (result.passed || !result.blocking) return result;
  throw new CassetteDrift(result);
}

function defaultConfig() {
  const main = process.argv[1];
  const found = (main && findConfig(path.dirname(main))) || findConfig(process.cwd());
  if (!found) throw new CassetteError(`no ${CONFIG_FILE} above ${main || process.cwd()}: pass { config }`, 'cassette init');
  return found;
}

const projects = new Map();

// The session of this process: node --test runs each test file in a child
// process of its own (NODE_TEST_CONTEXT set), all children of one runner;
// a file run with plain node is a session by itself.
const sessionPID = process.env.NODE_TEST_CONTEXT ? process.ppid : process.pid;

// startTime is when process pid began (from /proc; now when unknown).
function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))[1]);
    if (Number.isFinite(ticks) && Number.isFinite(btime)) return new Date((btime + ticks / 100) * 1000);
  } catch {
    // not Linux
  }
  return new Date();
}

/** The name of the run of observations of a session that began at t, as cassette names runs. */
export function runName(t, pid) {
  const iso = t.toISOString(); // 2026-12-01T19:32:15.123Z
  return `${iso.slice(0, 19).replace(/[-:]/g, '')}.${iso.slice(20, 23)}000Z-${pid}`;
}

let sessionRun;

// The run this session's observations go to: $CASSETTE_OBSERVE_DIR (cassette
// observe's), else one run of the session's own below the project's
// .cassette/observed, every test file of the session sharing it.
function observeDir() {
  if (process.env.CASSETTE_OBSERVE_DIR) return process.env.CASSETTE_OBSERVE_DIR;
  if (sessionRun === undefined) {
    let config;
    try {
      config = defaultConfig();
    } catch {
      config = findConfig(process.cwd());
    }
    const root = config ? path.dirname(config) : process.cwd();
    sessionRun = path.join(root, '.cassette', 'observed', runName(startTime(sessionPID), sessionPID));
  }
  return sessionRun;
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

// mergeReports merges the report sets of this session's test files
// (reportDir/.workers/SESSION/PID, one per file) into reportDir, under a
// lock, so that the last file to finish leaves the set of them all: node
// runs the files in parallel, and each one's check wrote only its own cases.
async function mergeReports(binary, reportDir) {
  const root = path.join(reportDir, '.workers');
  const lock = path.join(root, 'lock');
  mkdirSync(root, { recursive: true });
  for (let waited = 0; ; waited += 10) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      if (waited > 30000) rmSync(lock, { recursive: true, force: true }); // left by a killed process
      await sleep(10);
    }
  }
  try {
    for (const s of readdirSync(root)) {
      if (s !== 'lock' && s !== String(sessionPID) && !alive(Number(s))) rmSync(path.join(root, s), { recursive: true, force: true });
    }
    const mine = path.join(root, String(sessionPID));
    const dirs = readdirSync(mine).map((d) => path.join(mine, d)).filter((d) => existsSync(path.join(d, 'run.json'))).sort();
    if (dirs.length === 0) return;
    const r = spawnSync(binary, ['report', 'merge', '--out', reportDir, ...dirs], { encoding: 'utf8' });
    if (r.status !== 0 && r.status !== 1) {
      throw new CassetteError(`cassette report merge of the test files' reports failed (exit ${r.status}): ${String(r.stderr).trim()}`);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** The Project of a config (one check co-process per config and file). */
export function project({ config, bin, reportDir = process.env.CASSETTE_REPORT_DIR } = {}) {
  const file = config instanceof URL ? fileURLToPath(config) : config || defaultConfig();
  const key = path.resolve(file);
  if (!projects.has(key)) {
    const out = reportDir ? path.resolve(reportDir) : undefined;
    const own = out ? path.join(out, '.workers', String(sessionPID), String(process.pid)) : undefined;
    const p = new Project(findBinary(bin), key, { reportDir: own });
    projects.set(key, p);
    after(async () => {
      const summary = await p.close();
      if (summary && out) await mergeReports(p.binary, out);
    });
  }
  return projects.get(key);
}

/**
 * Register one node:test test per cassette of adapter (all adapters when
 * it is undefined). fn(case, t) drives the fake, usually with
 * case.verifyCLI or case.verifyHTTP. A case under quarantine is a todo
 * test until its entry expires. options: config (a path or file URL;
 * default: the nearest cassette.yaml above the test file), bin, reportDir.
 */
export function contract(adapter, fn, options = {}) {
  let p;
  let listing;
  try {
    p = project(options);
    listing = listings(p, adapter);
    if (listing.cases.length === 0) {
      throw new CassetteError(`adapter ${adapter} has no cassette in ${p.config}`, `cassette record --adapter ${adapter || 'NAME'} --help`);
    }
  } catch (e) {
    if (!(e instanceof CassetteError)) throw e;
    // A set-up problem fails this contract, once, with the step to take;
    // the file's other tests still run.
    const where = p ? p.config : (process.argv[1] || CONFIG_FILE);
    test(`${adapter || 'cassette'}: set-up`, () => {
      const err = new CassetteError(e.text());
      // The binding's frames are not the story (and without a frame node
      // brackets the text): the one frame is the project's config.
      err.stack = `${err.name}: ${err.message}\n    at ${where}`;
      throw err;
    });
    return;
  }
  const file = process.argv[1] ? path.relative(process.cwd(), process.argv[1]) : '';
  const n = (contracts.get(file) || 0) + 1; // the n-th contract() of the file: its tests are other tests
  contracts.set(file, n);
  for (const c of listing.cases) {
    const q = c.quarantine;
    const opts = q && !q.expired ? { todo: `quarantined until ${q.expires}: ${q.reason}` } : {};
    const replay = `node --test --test-name-pattern=${shellQuote(`^${escapeRegExp(c.id)}$`)} ${shellQuote(file)}`;
    const name = `${file} > ${c.id}${n > 1 ? ` #${n}` : ''}`;
    test(c.id, opts, async (t) => {
      const k = new Case(p, c, replay, name);
      let r;
      try {
        r = await fn(k, t);
      } catch (e) {
        if (k.last && k.last.passed) {
          // The case passed, then the test failed: the reports say what node says.
          const what = String(e && e.message ? e.message : e).split('\n')[0].slice(0, 500);
          await k.checkError(`the test failed after its case passed: ${what}`).catch(() => {});
        }
        throw e;
      }
      if (!k.checked) {
        throw new CassetteError(`${c.id} never verified its case: call c.verifyCLI(fake), c.verifyHTTP(handler), c.verifyFetch(app), c.checkCLI(...) or c.checkHTTP(...)`);
      }
      return r;
    });
  }
}

const contracts = new Map();

// listings reads each project's listing of an adapter once (an error too).
const listed = new Map();
function listings(p, adapter) {
  const key = `${p.config}\0${adapter || ''}`;
  if (!listed.has(key)) {
    try {
      listed.set(key, p.cases(adapter));
    } catch (e) {
      listed.set(key, e);
    }
  }
  const l = listed.get(key);
  if (l instanceof Error) throw l;
  return l;
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function shellQuote(s) {
  return /^[\w./=:@+,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

// Observations for `cassette coverage`: the calls a project's own tests
// make to an in-process fake, one JSON line each, in cassette's observation
// format (version 1; see the README, "The observation format"), written to
// $CASSETTE_OBSERVE_DIR (the run `cassette observe` set up), else to a run of
// the node --test session's own below the project's .cassette/observed
// (coverage reads the latest run), in a file of this process, each line
// with one append. Values of environment
// variables whose names say they are credentials become [REDACTED].

const credentialName = /TOKEN|SECRET|PASSW|API_?KEY|AUTH|CREDENTIAL|PRIVATE/i;

function redactor() {
  const secrets = [...new Set(Object.entries(process.env).filter(([k, v]) => credentialName.test(k) && v.length >= 6).map(([, v]) => v))]
    .sort((a, b) => b.length - a.length);
  return (s) => secrets.reduce((out, v) => out.split(v).join('[REDACTED]'), String(s));
}

/** Writes the observed calls to one adapter's fake. */
export class Observer {
  constructor(adapter, kind, { dir, test } = {}) {
    Object.assign(this, { adapter, kind, dir, test });
  }

  write(call, test = this.test) {
    const dir = this.dir || observeDir();
    mkdirSync(dir, { recursive: true });
    const line = { v: 1, adapter: this.adapter, kind: this.kind, call, source: 'node', ...(test ? { test } : {}) };
    appendFileSync(path.join(dir, `node-${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
  }

  /** Record one command line (the command first) and its stdin. */
  cli(argv, stdin, test) {
    const redact = redactor();
    const call = { argv: argv.map(redact) };
    if (stdin && stdin.length > 0) {
      call.stdin = true;
      const text = textField(stdin, 'input');
      if (text.input !== undefined && text.input.length <= 64 << 10) call.input = redact(text.input);
    }
    this.write(call, test);
  }

  /** Record one request: method, path and query, its body. */
  http(method, url, contentType, body, test) {
    const redact = redactor();
    const call = { method, url: redact(url) };
    if (contentType) call.content_type = contentType;
    if (body && body.length > 0) {
      const text = textField(body, 'body');
      if (text.body !== undefined && Buffer.byteLength(text.body) <= 1 << 20) call.body = redact(text.body);
      else call.body_bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
    }
    this.write(call, test);
  }
}

/**
 * Wrap an in-process CLI fake called as fake(args, { stdin, ... }): each
 * call is observed (options.command defaults to the adapter's name), then
 * made. options.test names the test, options.dir the directory.
 */
export function observeCLI(adapter, fake, options = {}) {
  const obs = new Observer(adapter, 'cli', options);
  return (args, opts = {}, ...rest) => {
    obs.cli([options.command || adapter, ...args], opts.stdin ?? opts.input);
    return fake(args, opts, ...rest);
  };
}

/** Wrap a fetch-style fake (WHATWG Request → Response): each request is observed, then served. */
export function observeFetch(adapter, handler, options = {}) {
  const obs = new Observer(adapter, 'http', options);
  return async (req) => {
    const u = new URL(req.url);
    const body = req.body ? new Uint8Array(await req.clone().arrayBuffer()) : undefined;
    obs.http(req.method, u.pathname + u.search, req.headers.get('content-type') || undefined, body);
    return handler(req);
  };
}
