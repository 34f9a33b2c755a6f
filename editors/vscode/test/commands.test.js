'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');

const c = require('../lib/commands');
const pkg = require('../package.json');

const ctx = { home: '/home/u', workspaceFolder: '/ws' };

test('contributed command ids do not collide with the server\'s', () => {
  // vscode-languageclient registers the server's executeCommandProvider ids itself;
  // contributing the same id would make registerCommand throw at activation.
  const contributed = pkg.contributes.commands.map((x) => x.command);
  assert.deepEqual(contributed.sort(), [c.OPEN_TRACE_SUMMARY, c.RESTART, c.SHOW_REPORT, c.LINK_TRACE_FOLDER, c.UNLINK_TRACE,
    c.COMPARE_TRACE_FOLDERS, c.SHOW_MEMORY_BUDGET].sort());
  for (const id of contributed) assert.ok(![c.REPORT, c.TRACE_SUMMARY, c.LINK_TRACE, c.COMPARE_TRACES, c.MEMORY_BUDGET].includes(id), id);
  const titles = Object.fromEntries(pkg.contributes.commands.map((x) => [x.command, `${x.category}: ${x.title}`]));
  assert.equal(titles[c.OPEN_TRACE_SUMMARY], 'perf-doctor: Open trace summary');
  assert.equal(titles[c.SHOW_REPORT], 'perf-doctor: Show report');
  assert.equal(titles[c.LINK_TRACE_FOLDER], 'perf-doctor: Link a trace to this script');
  assert.equal(titles[c.COMPARE_TRACE_FOLDERS], 'perf-doctor: Compare traces (before, after)');
  assert.equal(titles[c.SHOW_MEMORY_BUDGET], 'perf-doctor: Show memory budget');
  // Reachable from the command palette and the editor's context menu on shell scripts.
  const menus = pkg.contributes.menus;
  assert.ok(menus.commandPalette.some((m) => m.command === c.SHOW_MEMORY_BUDGET && m.when === 'editorLangId == shellscript'));
  assert.ok(menus['editor/context'].some((m) => m.command === c.SHOW_MEMORY_BUDGET));
  // The client-side switches for the lens and the inlay hints.
  const props = pkg.contributes.configuration.properties;
  assert.equal(props['perfDoctor.memoryBudgetLens'].type, 'boolean');
  assert.equal(props['perfDoctor.memoryBudgetLens'].default, true);
  assert.equal(props['perfDoctor.inlayHints'].default, true);
});

test('memory budget argument: the lens\' URI, else the active attached script', () => {
  const doc = { uri: 'file:///ws/scripts/training/run.sh', scheme: 'file', fsPath: '/ws/scripts/training/run.sh' };
  const yes = () => true;
  const no = () => false;
  assert.equal(c.memoryBudgetArgument('file:///ws/a.sh', undefined, no), 'file:///ws/a.sh', 'the lens gives the URI');
  assert.equal(c.memoryBudgetArgument(undefined, doc, yes), doc.uri);
  const picked = { scheme: 'file', fsPath: '/ws/b.sh', toString: () => 'file:///ws/b.sh' };
  assert.equal(c.memoryBudgetArgument(picked, doc, yes), 'file:///ws/b.sh', 'the editor menu gives a Uri');
  assert.throws(() => c.memoryBudgetArgument(undefined, undefined, yes), /open a training launch script first/);
  assert.throws(() => c.memoryBudgetArgument(undefined, doc, no), /is not one/);
});

test('link result: another job\'s trace is a mismatch', () => {
  assert.deepEqual(c.linkResult({ trace: '/t', measures: {} }), { trace: '/t', measures: {} });
  assert.deepEqual(c.linkResult({ trace: '/t', mismatch: "not this script's", measures: null }),
    { trace: '/t', measures: null, mismatch: "not this script's" });
});

test('trace argument from a picked Uri', () => {
  const uri = { scheme: 'file', fsPath: '/data/traces/run1', toString: () => 'file:///data/traces/run1' };
  assert.equal(c.traceArgument(uri, ctx), '/data/traces/run1');
  const remote = { scheme: 'vscode-remote', fsPath: '/x', toString: () => 'vscode-remote://ssh/x' };
  assert.throws(() => c.traceArgument(remote, ctx), /is not a file/);
});

test('trace argument from typed text', () => {
  assert.equal(c.traceArgument('  "/data/traces/rank 0.json.gz" ', ctx), '/data/traces/rank 0.json.gz');
  assert.equal(c.traceArgument("'~/t'", ctx), '/home/u/t');
  assert.equal(c.traceArgument('${workspaceFolder}/traces', ctx), '/ws/traces');
  // A relative path is passed on: the server resolves it against the workspace root.
  assert.equal(c.traceArgument('traces/run1', ctx), 'traces/run1');
  assert.equal(c.traceArgument('file:///data/t', ctx), 'file:///data/t');
  assert.throws(() => c.traceArgument('   ', ctx), c.CommandInputError);
  assert.throws(() => c.traceArgument('""', ctx), c.CommandInputError);
  assert.throws(() => c.traceArgument(undefined, ctx), /no trace file or folder/);
});

test('report argument', () => {
  const d = { uri: 'file:///r/scripts/training/run.sh', scheme: 'file', fsPath: '/r/scripts/training/run.sh' };
  assert.equal(c.reportArgument(d, true), 'file:///r/scripts/training/run.sh', 'open: the editor\'s text');
  assert.equal(c.reportArgument(d, false), '/r/scripts/training/run.sh', 'not open: the file on disk');
  assert.throws(() => c.reportArgument({ uri: 'untitled:1', scheme: 'untitled' }, false), /save the script first/);
  assert.equal(c.reportArgument({ uri: 'untitled:1', scheme: 'untitled' }, true), 'untitled:1');
  assert.throws(() => c.reportArgument(undefined, false), /open a training launch script/);
});

test('request params and results', () => {
  assert.deepEqual(c.executeParams(c.TRACE_SUMMARY, '/t'), { command: 'perfDoctor.traceSummary', arguments: ['/t'] });
  assert.deepEqual(c.executeParams(c.LINK_TRACE, 'file:///s.sh', '/t'), { command: 'perfDoctor.linkTrace', arguments: ['file:///s.sh', '/t'] });
  assert.deepEqual(c.linkResult({ trace: null }), { trace: null, measures: null });
  assert.throws(() => c.linkResult({}), /without a trace/);
  assert.deepEqual(c.summaryResult({ markdown: '# x', extra: 1 }, c.REPORT), { markdown: '# x' });
  assert.deepEqual(c.summaryResult({ markdown: '', uri: 'file:///t/s.md' }, c.REPORT), { markdown: '', uri: 'file:///t/s.md' });
  assert.throws(() => c.summaryResult(null, c.REPORT), /perfDoctor\.report: the server answered without markdown/);
  assert.throws(() => c.summaryResult({ uri: 'file:///x' }, c.TRACE_SUMMARY), /without markdown/);
  assert.equal(
    c.errorText(new Error('Request workspace/executeCommand failed with message: perfDoctor.traceSummary: no such file')),
    'perfDoctor.traceSummary: no such file',
  );
  assert.equal(c.errorText(undefined), 'unknown error');
});
