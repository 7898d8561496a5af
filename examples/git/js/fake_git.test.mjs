// The contract of FakeGit: every cassette of adapter git (../cassettes/git),
// recorded from the real git, is replayed against the in-process fake and
// compared, normalized, by cassette (see ../cassette.yaml).
import { contract } from '../../../js/cassette.mjs';
import { FakeGit } from './fake_git.mjs';

contract('git', (c) => c.verifyCLI((c) => new FakeGit().run(c.args, { cwd: c.cwd })));
