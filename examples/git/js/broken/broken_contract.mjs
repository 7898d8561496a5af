// The contract test of BrokenFakeGit: it fails, on purpose. `node --test`
// does not pick this file up by itself (its name is not a test file's):
// run it by name to see a drift,
//
//   node --test examples/git/js/broken/broken_contract.mjs
import { contract } from '../../../../js/cassette.mjs';
import { BrokenFakeGit } from './broken_fake_git.mjs';

contract('git', (c) => c.verifyCLI((c) => new BrokenFakeGit().run(c.args, { cwd: c.cwd })));
