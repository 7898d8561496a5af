// A deliberately broken FakeGit, to see what a drift looks like: it
// misremembers the subject of the last commit ("Document it" where the
// real git says "Document how to run it"), so the cases that print that
// commit (git/log-oneline, git/show-stat-head) fail with a located drift.
// `node broken_fake_git.mjs ARGS` runs it as a command, so that
// `cassette verify` can show the same drift for the same fake.
import { fileURLToPath } from 'node:url';
import { FakeGit, main, newRepo } from '../fake_git.mjs';

export class BrokenFakeGit extends FakeGit {
  constructor() {
    const repo = newRepo();
    repo.commits.at(-1).subject = 'Document it';
    super(repo);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(new BrokenFakeGit());
