'use strict';
// The extension's requests, as vscode-languageclient would send them, against the built server.
// Needs PERF_DOCTOR_BIN (ctest sets it); PD_HTA_DIR locates the real traces.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');

const { Session, vscodeCapabilities, applyEdits } = require('./lsp-session');
const config = require('../lib/config');
const commands = require('../lib/commands');
const selector = require('../lib/selector');

const { REPO, BIN, HTA, skipNoServer } = require('./paths');
const FIXTURES = path.join(REPO, 'tests/editors/fixtures');
const SCRIPT = path.join(FIXTURES, 'scripts/training/text/run-qwen3-4B-8xgpu.sh');
const TRACE = path.join(HTA, 'hta-trace-filter-2rank');
const skip = skipNoServer;

function codes(p) {
  return p.diagnostics.map((d) => d.code).sort();
}

// A session started exactly the way the extension starts the server.
async function start(raw, { showDocument = false, configuration } = {}) {
  const ctx = { home: os.homedir(), workspaceFolder: FIXTURES };
  const cmd = config.serverCommand({ path: BIN, ...raw }, ctx);
  const s = new Session(cmd, { configuration });
  const { settings, problems } = config.serverSettings(raw, ctx);
  assert.deepEqual(problems, []);
  const init = await s.initialize({
    rootUri: pathToFileURL(FIXTURES).href,
    workspaceFolders: [{ uri: pathToFileURL(FIXTURES).href, name: 'fixtures' }],
    capabilities: vscodeCapabilities({ showDocument }),
    initializationOptions: settings,
  });
  return { s, init };
}

test('diagnostics, hover, quick fix and settings through the protocol', { skip }, async () => {
  const { s, init } = await start({ lang: 'en', rules: { 'R-P16': 'off' } });
  const caps = init.capabilities;
  assert.equal(caps.positionEncoding, 'utf-16');
  assert.equal(caps.textDocumentSync.change, 2, 'incremental sync');
  assert.ok(caps.hoverProvider);
  assert.ok(caps.codeActionProvider.codeActionKinds.includes('quickfix'));
  // The server's command ids are the ones lib/commands.js sends.
  assert.deepEqual(caps.executeCommandProvider.commands.sort(),
    [commands.REPORT, commands.TRACE_SUMMARY, commands.LINK_TRACE, commands.COMPARE_TRACES, commands.MEMORY_BUDGET].sort());

  const uri = pathToFileURL(SCRIPT).href;
  let text = fs.readFileSync(SCRIPT, 'utf8');
  assert.ok(selector.shouldAttach({ uri, scheme: 'file', fsPath: SCRIPT, languageId: 'shellscript', getText: () => text }));
  await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'shellscript', version: 1, text } });
  const first = await s.publish(uri, 1);
  const got = codes(first);
  for (const c of ['R-P10', 'R-P24', 'R-P01']) assert.ok(got.includes(c), `${c} in ${got}`);
  assert.ok(!got.includes('R-P16'), 'rules: {"R-P16": "off"} from initializationOptions hides it');
  const p10 = first.diagnostics.find((d) => d.code === 'R-P10');
  assert.equal(p10.severity, 2, 'R-P10 is a warning');
  assert.equal(p10.source, 'perf-doctor');
  const lines = text.split('\n');
  assert.match(lines[p10.range.start.line], /--tensor-model-parallel-size 2/);

  // Hover on the flag: its documentation and the value the analysis resolved.
  const tpLine = lines.findIndex((l) => l.includes('--tensor-model-parallel-size'));
  const hover = await s.conn.sendRequest('textDocument/hover', {
    textDocument: { uri },
    position: { line: tpLine, character: lines[tpLine].indexOf('--') + 4 },
  });
  assert.equal(hover.contents.kind, 'markdown');
  assert.match(hover.contents.value, /\*\*--tensor-model-parallel-size\*\*/);
  assert.match(hover.contents.value, /default `1`/);
  assert.match(hover.contents.value, /Megatron-LM option · NVIDIA\/Megatron-LM @ [0-9a-f]{12}/);
  assert.match(hover.contents.value, /Resolved value:\*\* `2`/);
  assert.match(hover.contents.value, /R-P10/);

  // The quick fix for R-P10, applied the way VS Code applies a WorkspaceEdit.
  const actions = await s.conn.sendRequest('textDocument/codeAction', {
    textDocument: { uri },
    range: p10.range,
    context: { diagnostics: [p10], only: ['quickfix'] },
  });
  const fix = actions.find((a) => a.kind === 'quickfix' && a.isPreferred && (a.diagnostics || []).some((d) => d.code === 'R-P10'));
  assert.ok(fix, JSON.stringify(actions.map((a) => a.title)));
  assert.ok(actions.every((a) => a.kind === 'quickfix'), 'context.only is honoured');
  const edits = fix.edit.changes[uri];
  const fixed = applyEdits(text, edits);
  assert.notEqual(fixed, text);
  assert.match(fixed, /--tensor-model-parallel-size 2\n\s+--sequence-parallel\n/);
  const change = edits.map((e) => ({ range: e.range, text: e.newText }));
  await s.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: change });
  text = fixed;
  const second = await s.publish(uri, 2);
  assert.ok(!codes(second).includes('R-P10'), `R-P10 gone after the fix: ${codes(second)}`);
  assert.ok(codes(second).includes('R-P24'));

  // A settings change, sent the way the extension sends it ({perfDoctor: mapped settings}).
  let n = s.published(uri);
  const pushed = config.serverSettings({ rules: { 'R-P24': 'off', 'R-P16': 'off' } }, {}).settings;
  await s.conn.sendNotification('workspace/didChangeConfiguration', { settings: { perfDoctor: pushed } });
  const third = await s.publish(uri, 2, n);
  assert.ok(!codes(third).includes('R-P24'), `R-P24 off: ${codes(third)}`);
  assert.ok(codes(third).includes('R-P01'));

  // The report of the open document (its edited text, not the file on disk).
  const report = commands.summaryResult(
    await s.conn.sendRequest('workspace/executeCommand', commands.executeParams(commands.REPORT, commands.reportArgument({ uri }, true))),
    commands.REPORT,
  );
  assert.match(report.markdown, /R-P01/);
  assert.doesNotMatch(report.markdown, /R-P10/, 'the report reflects the fixed buffer');

  assert.deepEqual(s.messages, [], 'the mapped settings raise no warnings in the server');
  const status = await s.close();
  assert.equal(status.code, 0);
});

test('settings pulled with workspace/configuration', { skip }, async () => {
  // What the extension's workspace.configuration middleware answers.
  const answer = config.serverSettings({ disabledRules: ['R-P01'], lang: 'en' }, {}).settings;
  const { s } = await start({}, { configuration: (section) => (section === 'perfDoctor' ? answer : null) });
  const uri = pathToFileURL(SCRIPT).href;
  const text = fs.readFileSync(SCRIPT, 'utf8');
  await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'shellscript', version: 1, text } });
  assert.ok(codes(await s.publish(uri, 1)).includes('R-P01'));
  const n = s.published(uri);
  await s.conn.sendNotification('workspace/didChangeConfiguration', { settings: null });
  const after = await s.publish(uri, 1, n);
  assert.ok(s.requests.some((r) => r.method === 'workspace/configuration' && r.params.items[0].section === 'perfDoctor'));
  assert.ok(!codes(after).includes('R-P01'), `${codes(after)}`);
  assert.equal((await s.close()).code, 0);
});

test('trace summary without showDocument: markdown only, nothing written', { skip }, async () => {
  assert.ok(fs.existsSync(TRACE), `shared trace folder ${TRACE}`);
  const { s } = await start({});
  const arg = commands.traceArgument(TRACE, {});
  const res = commands.summaryResult(
    await s.conn.sendRequest('workspace/executeCommand', commands.executeParams(commands.TRACE_SUMMARY, arg)),
    commands.TRACE_SUMMARY,
  );
  assert.match(res.markdown, /^# perf-doctor trace: hta-trace-filter-2rank/);
  assert.match(res.markdown, /sampled_rank-0\.json\.gz/);
  assert.equal(res.uri, undefined);
  assert.ok(!s.requests.some((r) => r.method === 'window/showDocument'));

  await assert.rejects(
    s.conn.sendRequest('workspace/executeCommand', commands.executeParams(commands.TRACE_SUMMARY, '/nonexistent/trace.json')),
    (err) => /perfDoctor\.traceSummary/.test(commands.errorText(err)),
  );
  assert.equal((await s.close()).code, 0);
});

test('trace summary with showDocument (VS Code): written beside the traces and shown', { skip }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-vscode-trace-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const copy = path.join(dir, 'hta-trace-filter-2rank');
  fs.mkdirSync(copy);
  for (const f of fs.readdirSync(TRACE)) fs.copyFileSync(path.join(TRACE, f), path.join(copy, f));

  const { s } = await start({}, { showDocument: true });
  const res = commands.summaryResult(
    await s.conn.sendRequest('workspace/executeCommand', commands.executeParams(commands.TRACE_SUMMARY, copy)),
    commands.TRACE_SUMMARY,
  );
  assert.ok(res.uri, 'the server wrote a file');
  const shown = await s.until(() => s.requests.find((r) => r.method === 'window/showDocument'), 'window/showDocument');
  assert.equal(shown.params.uri, res.uri);
  const written = new URL(res.uri).pathname;
  assert.equal(path.dirname(written), copy);
  assert.equal(fs.readFileSync(written, 'utf8'), res.markdown);
  assert.match(res.markdown, /^# perf-doctor trace: hta-trace-filter-2rank/);
  assert.equal((await s.close()).code, 0);
});

test('definition, references, outline, rename, inlay hints and the code lens, as VS Code asks them', { skip }, async () => {
  const { s } = await start({ lang: 'en' });
  const uri = pathToFileURL(SCRIPT).href;
  const text = fs.readFileSync(SCRIPT, 'utf8');
  const lines = text.split('\n');
  await s.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'shellscript', version: 1, text } });
  await s.publish(uri, 1);
  const td = { uri };
  const def = lines.findIndex((l) => l.startsWith('CKPT_ARGS=('));
  const use = lines.findIndex((l) => l.includes('"${CKPT_ARGS[@]}"'));
  const at = { line: use, character: lines[use].indexOf('CKPT_ARGS') + 2 };

  const defs = await s.conn.sendRequest('textDocument/definition', { textDocument: td, position: at });
  assert.ok(Array.isArray(defs) && defs.some((l) => l.uri === uri && l.range.start.line === def), JSON.stringify(defs));
  const model = lines.findIndex((l) => l.includes('"${MODEL_ARGS[@]}"'));
  const mdefs = await s.conn.sendRequest('textDocument/definition',
    { textDocument: td, position: { line: model, character: lines[model].indexOf('MODEL_ARGS') + 2 } });
  assert.ok(mdefs.some((l) => l.uri.endsWith('/scripts/models/qwen3-4B.sh')), 'into the sourced model config');

  const refs = await s.conn.sendRequest('textDocument/references', { textDocument: td, position: at, context: { includeDeclaration: true } });
  assert.deepEqual(refs.map((r) => r.range.start.line).sort((a, b) => a - b), [def, use]);

  const symbols = await s.conn.sendRequest('textDocument/documentSymbol', { textDocument: td });
  const names = symbols.map((x) => x.name);
  for (const n of ['CKPT_ARGS', 'PERF_ARGS', 'SGLANG_ARGS']) assert.ok(names.includes(n), `${n} in ${names}`);
  const perf = symbols.find((x) => x.name === 'PERF_ARGS');
  assert.ok((perf.children || []).some((c) => c.name === '--tensor-model-parallel-size'), 'an array lists its flags');

  const prep = await s.conn.sendRequest('textDocument/prepareRename', { textDocument: td, position: at });
  assert.ok(prep && (prep.start || prep.range), JSON.stringify(prep));
  const edit = await s.conn.sendRequest('textDocument/rename', { textDocument: td, position: at, newName: 'CHECKPOINT_ARGS' });
  const renamed = applyEdits(text, edit.changes ? edit.changes[uri] : edit.documentChanges[0].edits);
  assert.match(renamed, /^CHECKPOINT_ARGS=\($/m);
  assert.match(renamed, /"\$\{CHECKPOINT_ARGS\[@\]\}"/);
  assert.doesNotMatch(renamed, /CKPT_ARGS/);
  await assert.rejects(s.conn.sendRequest('textDocument/rename', { textDocument: td, position: at, newName: '1BAD' }));

  const hints = await s.conn.sendRequest('textDocument/inlayHint',
    { textDocument: td, range: { start: { line: 0, character: 0 }, end: { line: lines.length, character: 0 } } });
  assert.ok(hints.length > 0 && hints.every((h) => h.position && h.label), JSON.stringify(hints).slice(0, 300));
  const label = (h) => (typeof h.label === 'string' ? h.label : h.label.map((p) => p.value).join(''));
  assert.ok(hints.some((h) => /DP|world/.test(label(h))), hints.map(label).join(' | '));

  const lenses = await s.conn.sendRequest('textDocument/codeLens', { textDocument: td });
  assert.equal(lenses.length, 1);
  assert.equal(lenses[0].command.command, commands.SHOW_MEMORY_BUDGET);
  const budget = commands.summaryResult(
    await s.conn.sendRequest('workspace/executeCommand', commands.executeParams(commands.MEMORY_BUDGET, uri)), commands.MEMORY_BUDGET);
  assert.match(budget.markdown, /activations/);
  assert.deepEqual(s.messages, []);
  assert.equal((await s.close()).code, 0);
});
