'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');

const {
  DOCUMENT_SELECTOR,
  isTrainingScriptPath,
  containsTrainInvocation,
  shouldAttach,
  AttachTracker,
} = require('../lib/selector');

const { REPO, BIN, skipNoServer } = require('./paths');
const FIXTURE = path.join(REPO, 'tests/editors/fixtures/scripts/training/text/run-qwen3-4B-8xgpu.sh');

function doc(fsPath, text, extra = {}) {
  return { uri: `file://${fsPath}`, scheme: 'file', languageId: 'shellscript', fsPath, getText: () => text, ...extra };
}

test('the static selector is shell scripts on disk and unsaved', () => {
  assert.deepEqual(DOCUMENT_SELECTOR, [
    { scheme: 'file', language: 'shellscript' },
    { scheme: 'untitled', language: 'shellscript' },
  ]);
});

test('scripts/training/ paths', () => {
  assert.ok(isTrainingScriptPath('/r/scripts/training/text/run-qwen3-4B-8xgpu.sh'));
  assert.ok(isTrainingScriptPath('scripts/training/run.sh'));
  assert.ok(isTrainingScriptPath('C:\\r\\scripts\\training\\mm\\run.bash'));
  assert.ok(!isTrainingScriptPath('/r/scripts/models/qwen3-4B.sh'), 'model configs are sourced, not launched');
  assert.ok(!isTrainingScriptPath('/r/myscripts/training/run.sh'));
  assert.ok(!isTrainingScriptPath('/r/scripts/training/README.md'));
  assert.ok(!isTrainingScriptPath('/r/scripts/training'));
});

test('train invocations', () => {
  assert.ok(containsTrainInvocation('ray job submit -- python3 -m relax.entrypoints.train \\\n  --tp 2\n'));
  assert.ok(containsTrainInvocation('torchrun --nproc-per-node 8 -m relax.entrypoints.train "${ARGS[@]}"'));
  assert.ok(containsTrainInvocation('python relax/entrypoints/train.py --colocate'));
  assert.ok(containsTrainInvocation('ENTRY="relax.entrypoints.train"\npython -m "$ENTRY"'));
  assert.ok(!containsTrainInvocation('# python3 -m relax.entrypoints.train'), 'commented out');
  assert.ok(!containsTrainInvocation('   # see relax.entrypoints.train'), 'indented comment');
  assert.ok(!containsTrainInvocation('echo hi  # launched by relax.entrypoints.train'), 'trailing comment');
  assert.ok(!containsTrainInvocation('python3 -m relax.entrypoints.train_sft'), 'another module');
  assert.ok(!containsTrainInvocation('python3 -m myrelax.entrypoints.train'), 'another package');
  assert.ok(!containsTrainInvocation(''));
  assert.ok(!containsTrainInvocation(undefined));
});

test('the fixture used by the editor tests is attached both ways', () => {
  const text = fs.readFileSync(FIXTURE, 'utf8');
  assert.ok(isTrainingScriptPath(FIXTURE));
  assert.ok(containsTrainInvocation(text));
  assert.ok(shouldAttach(doc('/elsewhere/launch.sh', text)), 'by content');
});

test('shouldAttach', () => {
  const launch = 'python3 -m relax.entrypoints.train --colocate\n';
  assert.ok(shouldAttach(doc('/r/scripts/training/run.sh', 'echo nothing yet')), 'by path');
  assert.ok(!shouldAttach(doc('/r/tools/cleanup.sh', 'rm -rf /tmp/x')), 'other shell scripts');
  assert.ok(shouldAttach(doc('/r/tools/launch', launch)), 'shellscript language without extension');
  assert.ok(!shouldAttach(doc('/r/notes.md', launch, { languageId: 'markdown' })), 'not a shell script');
  assert.ok(shouldAttach({ uri: 'untitled:Untitled-1', scheme: 'untitled', languageId: 'shellscript', getText: () => launch }));
  assert.ok(!shouldAttach({ uri: 'untitled:Untitled-1', scheme: 'untitled', languageId: 'shellscript', fsPath: 'scripts/training/x.sh', getText: () => '' }));
  assert.ok(!shouldAttach(doc('/r/scripts/training/run.sh', launch, { scheme: 'git' })), 'git diffs');
  assert.ok(!shouldAttach(undefined));
});

test('tracker: opens, changes and closes only what the server should see', () => {
  const t = new AttachTracker();
  const training = doc('/r/scripts/training/run.sh', 'echo');
  let text = 'echo hello\n';
  const other = doc('/r/tools/x.sh', '', { getText: () => text });

  assert.equal(t.onOpen(training), 'open');
  assert.equal(t.onOpen(training), 'open', 'a reopen stays open');
  assert.equal(t.onOpen(other), 'skip');
  assert.equal(t.onChange(training), 'forward');
  assert.equal(t.onChange(other), 'skip');
  // The user types a launch line: the server gets a didOpen with the whole text, then changes.
  text += 'python3 -m relax.entrypoints.train\n';
  assert.equal(t.onChange(other), 'open');
  assert.equal(t.onChange(other), 'forward');
  // Deleting it keeps the document attached until it is closed.
  text = 'echo\n';
  assert.equal(t.onChange(other), 'forward');
  assert.ok(t.has(other));
  assert.equal(t.onClose(other), 'forward');
  assert.equal(t.onClose(other), 'skip', 'closed once');
  assert.ok(!t.has(other));
  t.clear();
  assert.ok(!t.has(training));
  assert.equal(t.onClose(training), 'skip');
});
