// FakeGit: a fake of the git CLI that lives in the test process.
//
// It answers the call shapes the git example records (see ../README.md)
// from a fixed repository, in git's own output formats, so that its
// output, normalized, equals the real git's on the repository
// ../make-repo.sh builds. It is the JavaScript twin of the Go fake in
// ../fakes/git: the same cassettes verify both (fake_git.test.mjs;
// `cassette verify` for the Go one).
//
// Code under test calls `new FakeGit().run(['log', '--oneline'])` where it
// would call execFileSync('git', [...]); it returns { status, stdout,
// stderr } as spawnSync does. `node fake_git.mjs ARGS` runs it as a
// command, so that `cassette verify` can run it as a process too.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The state of the faked repository: the one make-repo.sh builds. */
export function newRepo() {
  return {
    branch: 'main',
    author: 'Ada Lovelace <ada@example.com>',
    commits: [ // oldest first
      { subject: 'Initial commit', files: [{ path: 'README.md', added: 3, deleted: 0 }] },
      { subject: 'Add the greet program', files: [{ path: 'go.mod', added: 3, deleted: 0 }, { path: 'main.go', added: 7, deleted: 0 }] },
      { subject: 'Document how to run it', files: [{ path: 'README.md', added: 3, deleted: 1 }] },
    ],
    status: ['A  CHANGELOG.md', ' M main.go', '?? notes.txt'],
    epoch: Date.UTC(2026, 10, 2, 9, 0, 0),
  };
}

class Unsupported extends Error {}

const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n) => String(n).padStart(2, '0');

export class FakeGit {
  constructor(repo = newRepo()) {
    this.repo = repo;
  }

  /** Commit i's id: stable, and distinct for each commit. */
  sha(i) {
    return createHash('sha1').update(`fake-git ${i} ${this.repo.commits[i].subject}`).digest('hex');
  }

  /** git's default date of commit i (an hour after the previous one), in UTC. */
  date(i) {
    const d = new Date(this.repo.epoch + i * 3600_000);
    return `${days[d.getUTCDay()]} ${months[d.getUTCMonth()]} ${d.getUTCDate()} ` +
      `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()} +0000`;
  }

  head() {
    return this.repo.commits.length - 1;
  }

  /** Run git with args; { status, stdout, stderr } as spawnSync returns. */
  run(args, { cwd = process.cwd() } = {}) {
    const out = [];
    const err = [];
    const status = this.main([...args], out, err, cwd);
    return { status, stdout: out.join(''), stderr: err.join('') };
  }

  main(args, out, err, cwd) {
    while (args.length > 0) { // global options a caller may put before the subcommand
      if (args[0] === '--no-pager') args = args.slice(1);
      else if ((args[0] === '-c' || args[0] === '-C') && args.length > 1) args = args.slice(2);
      else break;
    }
    if (args.length === 0) {
      err.push('usage: git <command> [<args>]\n');
      return 1;
    }
    const [cmd, ...rest] = args;
    try {
      switch (cmd) {
        case '--version':
        case 'version':
          out.push('git version 2.39.5\n');
          return 0;
        case 'rev-parse': return this.revParse(rest, out, cwd);
        case 'log': return this.log(rest, out);
        case 'status': return this.status(rest, out);
        case 'show': return this.show(rest, out);
        case 'branch':
          if (rest.length === 1 && rest[0] === '--show-current') {
            out.push(`${this.repo.branch}\n`);
            return 0;
          }
          throw new Unsupported();
        default:
          err.push(`git: '${cmd}' is not a git command. See 'git --help'.\n`);
          return 1;
      }
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      err.push(`fake-git: not faked: git ${args.join(' ')} (see examples/git/js)\n`);
      return 129;
    }
  }

  revParse(args, out, cwd) {
    switch (args.join(' ')) {
      case 'HEAD': out.push(`${this.sha(this.head())}\n`); break;
      case '--short HEAD': out.push(`${this.sha(this.head()).slice(0, 7)}\n`); break;
      case '--abbrev-ref HEAD': out.push(`${this.repo.branch}\n`); break;
      case '--show-toplevel': out.push(`${cwd}\n`); break;
      default: throw new Unsupported();
    }
    return 0;
  }

  log(args, out) {
    let oneline = false;
    let n = this.repo.commits.length;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === '--oneline') oneline = true;
      else if (a === 'HEAD') continue;
      else if (a === '-n' && i + 1 < args.length) n = count(args[++i]);
      else if (a.startsWith('--max-count=')) n = count(a.slice('--max-count='.length));
      else if (a.startsWith('-n')) n = count(a.slice(2));
      else if (a.startsWith('-')) n = count(a.slice(1));
      else throw new Unsupported();
    }
    for (let c = this.head(), shown = 0; c >= 0 && shown < n; c--, shown++) {
      if (oneline) {
        out.push(`${this.sha(c).slice(0, 7)} ${this.repo.commits[c].subject}\n`);
        continue;
      }
      if (shown > 0) out.push('\n');
      this.header(c, out);
    }
    return 0;
  }

  /** A commit as `git log` and `git show` print it (medium format). */
  header(i, out) {
    out.push(`commit ${this.sha(i)}\nAuthor: ${this.repo.author}\nDate:   ${this.date(i)}\n\n    ${this.repo.commits[i].subject}\n`);
  }

  status(args, out) {
    if (args.length !== 1 || !['--porcelain', '--short', '-s'].includes(args[0])) throw new Unsupported();
    for (const l of this.repo.status) out.push(`${l}\n`);
    return 0;
  }

  show(args, out) {
    if (!args.includes('--stat') || args.some((a) => a !== '--stat' && a !== 'HEAD')) throw new Unsupported();
    this.header(this.head(), out);
    out.push('\n');
    writeStat(this.repo.commits[this.head()].files, out);
    return 0;
  }
}

function count(s) {
  if (!/^\d+$/.test(s)) throw new Unsupported();
  return Number(s);
}

/** A diffstat as git prints it at 80 columns, for changes small enough that git draws one sign per line. */
function writeStat(files, out) {
  const nameW = Math.max(...files.map((f) => f.path.length));
  const countW = Math.max(...files.map((f) => String(f.added + f.deleted).length));
  const ins = files.reduce((s, f) => s + f.added, 0);
  const del = files.reduce((s, f) => s + f.deleted, 0);
  for (const f of files) {
    let line = ` ${f.path.padEnd(nameW)} | ${String(f.added + f.deleted).padStart(countW)}`;
    if (f.added + f.deleted > 0) line += ` ${'+'.repeat(f.added)}${'-'.repeat(f.deleted)}`;
    out.push(`${line}\n`);
  }
  let line = ` ${files.length} ${files.length === 1 ? 'file' : 'files'} changed`;
  if (ins > 0 || del === 0) line += `, ${ins} ${ins === 1 ? 'insertion' : 'insertions'}(+)`;
  if (del > 0 || ins === 0) line += `, ${del} ${del === 1 ? 'deletion' : 'deletions'}(-)`;
  out.push(`${line}\n`);
}

/** Run a FakeGit as a command (`node fake_git.mjs ARGS`). */
export function main(fake = new FakeGit()) {
  const r = fake.run(process.argv.slice(2));
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exitCode = r.status;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
