'use strict';
// extension.js itself, with the VS Code API faked and the language client connected to the
// built server (PERF_DOCTOR_BIN).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { Uri, textDocument, createVscode, createLanguageClientModule, loadExtension } = require('./fakes');
const { DOCUMENT_SELECTOR } = require('../lib/selector');

const { REPO, BIN, HTA, skipNoServer } = require('./paths');
const FIXTURES = path.join(REPO, 'tests/editors/fixtures');
const SCRIPT = path.join(FIXTURES, 'scripts/training/text/run-qwen3-4B-8xgpu.sh');
const TRACE = path.join(HTA, 'hta-trace-filter-2rank');
const CONTROL = path.join(HTA, 'hta-trace-diff-control');
const skip = skipNoServer;

async function activate(t, settings, extra = {}) {
  const state = { settings: { path: BIN, ...settings }, folders: [FIXTURES], ...extra };
  const { vscode, log } = createVscode(state);
  const clients = [];
  const ext = loadExtension(vscode, createLanguageClientModule(clients));
  const context = { subscriptions: [] };
  await ext.activate(context);
  t.after(() => ext.deactivate());
  return { ext, state, log, clients, context };
}

function fileDoc(p, text) {
  return textDocument(Uri.file(p), 'shellscript', text === undefined ? fs.readFileSync(p, 'utf8') : text);
}

test('activation starts `perf-doctor lsp` with the mapped settings', { skip }, async (t) => {
  const { log, clients, context } = await activate(t, { lang: 'zh', gpu: '', rules: { 'R-P16': 'off' }, modelConfigDir: 'scripts/models' });
  assert.equal(clients.length, 1);
  const c = clients[0];
  assert.equal(c.id, 'perfDoctor', 'the id VS Code uses for perfDoctor.trace.server');
  assert.deepEqual(c.serverOptions.run, { command: BIN, args: ['lsp'], transport: 0 });
  assert.deepEqual(c.clientOptions.documentSelector, DOCUMENT_SELECTOR);
  assert.deepEqual(c.clientOptions.initializationOptions, {
    lang: 'zh',
    modelConfigDir: path.join(FIXTURES, 'scripts/models'),
    rules: { 'R-P16': 'off' },
  });
  assert.deepEqual(c.initializeResult.capabilities.executeCommandProvider.commands.sort(),
    ['perfDoctor.compareTraces', 'perfDoctor.linkTrace', 'perfDoctor.memoryBudget', 'perfDoctor.report', 'perfDoctor.traceSummary']);
  assert.deepEqual([...log.commands.keys()].sort(), ['perfDoctor.compareTraceFolders', 'perfDoctor.linkTraceFolder',
    'perfDoctor.openTraceSummary', 'perfDoctor.restartServer', 'perfDoctor.showMemoryBudget', 'perfDoctor.showReport',
    'perfDoctor.unlinkTrace']);
  // What vscode-languageclient turns into VS Code's providers from the capabilities.
  const caps = c.initializeResult.capabilities;
  for (const k of ['definitionProvider', 'referencesProvider', 'documentSymbolProvider', 'inlayHintProvider'])
    assert.equal(caps[k], true, k);
  assert.deepEqual(caps.renameProvider, { prepareProvider: true });
  assert.deepEqual(caps.codeLensProvider, { resolveProvider: false });
  assert.equal(context.subscriptions.length >= 4, true);
  assert.deepEqual(log.warnings, []);
  assert.deepEqual(log.errors, []);
});

test('middleware: only training scripts reach the server', { skip }, async (t) => {
  const { clients } = await activate(t, {});
  const c = clients[0];
  const mw = c.clientOptions.middleware;
  const forwarded = [];
  const next = (x) => {
    forwarded.push(x);
    return Promise.resolve();
  };

  const training = fileDoc(SCRIPT);
  await mw.didOpen(training, next);
  let text = 'echo cleanup\n';
  const other = textDocument(Uri.file(path.join(os.tmpdir(), 'cleanup.sh')), 'shellscript', undefined);
  other.getText = () => text;
  await mw.didOpen(other, next);
  assert.deepEqual(forwarded, [training]);
  assert.equal(await mw.provideHover(other, { line: 0, character: 0 }, {}, () => 'asked'), null);
  assert.deepEqual(await mw.provideCodeActions(other, {}, {}, {}, () => 'asked'), []);
  assert.equal(await mw.provideHover(training, { line: 0, character: 0 }, {}, () => 'asked'), 'asked');
  // The other providers likewise: asked for training scripts, an empty answer otherwise.
  const pos = { line: 0, character: 0 };
  const asked = () => 'asked';
  const calls = {
    provideDefinition: (d) => mw.provideDefinition(d, pos, {}, asked),
    provideReferences: (d) => mw.provideReferences(d, pos, { includeDeclaration: true }, {}, asked),
    provideDocumentSymbols: (d) => mw.provideDocumentSymbols(d, {}, asked),
    prepareRename: (d) => mw.prepareRename(d, pos, {}, asked),
    provideRenameEdits: (d) => mw.provideRenameEdits(d, pos, 'NEW_NAME', {}, asked),
    provideInlayHints: (d) => mw.provideInlayHints(d, {}, {}, asked),
    provideCodeLenses: (d) => mw.provideCodeLenses(d, {}, asked),
  };
  for (const [name, call] of Object.entries(calls)) {
    assert.equal(await call(training), 'asked', `${name} on a training script`);
    const none = await call(other);
    assert.ok(none === null || (Array.isArray(none) && none.length === 0), `${name} on another script: ${JSON.stringify(none)}`);
  }

  // The other script gains a launch line: the extension sends the server a didOpen itself,
  // and the server analyses it.
  text += 'python3 -m relax.entrypoints.train --colocate\n';
  await mw.didChange({ document: other, contentChanges: [{}] }, next);
  assert.equal(forwarded.length, 1, 'the change itself is not forwarded');
  const open = c.sent.find((m) => m.method === 'textDocument/didOpen');
  assert.equal(open.params.textDocument.uri, other.uri.toString());
  assert.equal(open.params.textDocument.text, text);
  const pub = await c.session.publish(other.uri.toString(), 1);
  assert.ok(Array.isArray(pub.diagnostics));
  await mw.didChange({ document: other, contentChanges: [{}] }, next);
  assert.equal(forwarded.length, 2, 'later changes are forwarded');
  await mw.didClose(other, next);
  await mw.didClose(other, next);
  assert.equal(forwarded.length, 3, 'closed once');
});

// A private copy of the shared trace: the fake client advertises window/showDocument like VS
// Code, so the server writes its summary beside the traces.
function traceCopy(t, from = TRACE) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-ext-trace-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const copy = path.join(dir, path.basename(from));
  fs.mkdirSync(copy);
  for (const f of fs.readdirSync(from)) fs.copyFileSync(path.join(from, f), path.join(copy, f));
  return copy;
}

test('perf-doctor: Open trace summary asks for a path and previews the markdown', { skip }, async (t) => {
  const trace = traceCopy(t);
  const { log, clients } = await activate(t, {}, { openDialog: () => [Uri.file(trace)] });
  await log.commands.get('perfDoctor.openTraceSummary')();
  assert.deepEqual(log.errors, []);
  assert.equal(log.dialog.canSelectFiles && log.dialog.canSelectFolders, true);
  const req = clients[0].sent.find((m) => m.method === 'workspace/executeCommand');
  assert.deepEqual(req.params, { command: 'perfDoctor.traceSummary', arguments: [trace] });
  // The server wrote the summary (and asked VS Code to show it); the extension previews it.
  const preview = log.executed.find((e) => e.id === 'markdown.showPreview');
  assert.ok(preview, JSON.stringify(log));
  assert.equal(log.opened.length, 0);
  const shown = preview.args[0];
  assert.equal(shown.scheme, 'file');
  assert.equal(path.dirname(shown.fsPath), trace);
  assert.match(fs.readFileSync(shown.fsPath, 'utf8'), /^# perf-doctor trace: hta-trace-filter-2rank/);
});

test('Open trace summary: a cancelled dialog does nothing; a bad path is an error message', { skip }, async (t) => {
  const { log, clients } = await activate(t, {}, { openDialog: () => undefined });
  await log.commands.get('perfDoctor.openTraceSummary')();
  assert.equal(clients[0].sent.length, 0);
  await log.commands.get('perfDoctor.openTraceSummary')(Uri.file('/nonexistent/trace.json.gz'));
  assert.equal(log.errors.length, 1);
  assert.match(log.errors[0], /^perf-doctor: perfDoctor\.traceSummary: .*nonexistent/);
});

test('perf-doctor: Link a trace to this script sends the script and the trace; evidence reaches the diagnostics', { skip }, async (t) => {
  const other = traceCopy(t); // HTA's 2-rank set: a 128-rank job, not this 8-GPU script's
  const control = traceCopy(t, CONTROL); // HTA's trace-diff control: an 8-rank job
  let pick = other;
  const doc = fileDoc(SCRIPT);
  const { log, clients } = await activate(t, {}, { activeDocument: doc, openDialog: () => [Uri.file(pick)] });
  await clients[0].clientOptions.middleware.didOpen(doc, (d) =>
    clients[0].sendNotification({ method: 'textDocument/didOpen' }, clients[0].code2ProtocolConverter.asOpenTextDocumentParams(d)),
  );
  const session = clients[0].session;
  const uri = doc.uri.toString();
  const measured = () => (session.diagnostics.get(uri) || []).find((p) => p.diagnostics.some((d) => /Measured \(trace, /.test(d.message)));

  // Another job's trace: linked, the server warns, no finding carries its measures.
  await log.commands.get('perfDoctor.linkTraceFolder')();
  assert.deepEqual(log.errors, []);
  const req = clients[0].sent.find((m) => m.method === 'workspace/executeCommand');
  assert.deepEqual(req.params, { command: 'perfDoctor.linkTrace', arguments: [doc.uri.toString(), other] });
  const warned = await session.until(() => session.messages.find((m) => /not this script's/.test(m.message)), 'the mismatch warning');
  assert.equal(warned.type, 2, 'a warning');
  assert.equal(measured(), undefined);
  assert.deepEqual(log.infos, [], 'no "findings now carry" message for another job\'s trace');

  pick = control;
  await log.commands.get('perfDoctor.linkTraceFolder')();
  const withEvidence = await session.until(measured, 'a diagnostic with the measured evidence');
  assert.ok(withEvidence);
  assert.deepEqual(log.infos, [`perf-doctor: findings now carry what ${control} measured`]);
  await log.commands.get('perfDoctor.unlinkTrace')();
  const sent = clients[0].sent.filter((m) => m.method === 'workspace/executeCommand');
  assert.deepEqual(sent[sent.length - 1].params, { command: 'perfDoctor.linkTrace', arguments: [doc.uri.toString(), ''] });
  assert.deepEqual(log.errors, []);
});

test('perf-doctor: Show memory budget, and the code lens\' command, preview the breakdown', { skip }, async (t) => {
  const doc = fileDoc(SCRIPT);
  const { log, clients } = await activate(t, {}, { activeDocument: doc });
  await clients[0].clientOptions.middleware.didOpen(doc, (d) =>
    clients[0].sendNotification({ method: 'textDocument/didOpen' }, clients[0].code2ProtocolConverter.asOpenTextDocumentParams(d)),
  );
  const uri = doc.uri.toString();
  // The lens the server gives names the extension's command, with the script's URI.
  const lenses = await clients[0].session.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
  assert.equal(lenses.length, 1);
  assert.equal(lenses[0].range.start.line, 0);
  assert.match(lenses[0].command.title, /Memory per GPU .* of .* GiB/);
  assert.equal(lenses[0].command.command, 'perfDoctor.showMemoryBudget');
  assert.ok(log.commands.has(lenses[0].command.command), 'the lens\' command is registered');
  await log.commands.get(lenses[0].command.command)(...lenses[0].command.arguments);
  assert.deepEqual(log.errors, []);
  let req = clients[0].sent.filter((m) => m.method === 'workspace/executeCommand').pop();
  assert.deepEqual(req.params, { command: 'perfDoctor.memoryBudget', arguments: [uri] });
  assert.equal(log.opened.length, 1);
  assert.equal(log.opened[0].language, 'markdown');
  assert.match(log.opened[0].content, /static/);
  assert.match(log.opened[0].content, /KV/);
  // From the command palette: the active script.
  await log.commands.get('perfDoctor.showMemoryBudget')();
  req = clients[0].sent.filter((m) => m.method === 'workspace/executeCommand').pop();
  assert.deepEqual(req.params, { command: 'perfDoctor.memoryBudget', arguments: [uri] });
  assert.equal(log.opened.length, 2);
  assert.deepEqual(log.errors, []);
});

test('perfDoctor.memoryBudgetLens / perfDoctor.inlayHints false: no lens, no hints', { skip }, async (t) => {
  const { clients } = await activate(t, { memoryBudgetLens: false, inlayHints: false });
  const mw = clients[0].clientOptions.middleware;
  const doc = fileDoc(SCRIPT);
  await mw.didOpen(doc, () => Promise.resolve());
  assert.deepEqual(await mw.provideCodeLenses(doc, {}, () => 'asked'), []);
  assert.deepEqual(await mw.provideInlayHints(doc, {}, {}, () => 'asked'), []);
  assert.equal(await mw.provideDefinition(doc, { line: 0, character: 0 }, {}, () => 'asked'), 'asked');
  assert.deepEqual(clients[0].clientOptions.initializationOptions, {}, 'client-side settings are not sent to the server');
});

test('perf-doctor: Compare traces asks for before and after and previews the comparison', { skip }, async (t) => {
  const trace = traceCopy(t);
  const { log, clients } = await activate(t, {}, { openDialog: () => [Uri.file(trace)] });
  await log.commands.get('perfDoctor.compareTraceFolders')();
  assert.deepEqual(log.errors, []);
  const req = clients[0].sent.find((m) => m.method === 'workspace/executeCommand');
  assert.deepEqual(req.params, { command: 'perfDoctor.compareTraces', arguments: [trace, trace] });
  assert.equal(log.opened.length, 1);
  assert.match(log.opened[0].content, /^# Trace comparison/);
});

test('perf-doctor: Show report previews the report of the active script', { skip }, async (t) => {
  const doc = fileDoc(SCRIPT);
  const { log, clients } = await activate(t, {}, { activeDocument: doc });
  await clients[0].clientOptions.middleware.didOpen(doc, (d) =>
    clients[0].sendNotification({ method: 'textDocument/didOpen' }, clients[0].code2ProtocolConverter.asOpenTextDocumentParams(d)),
  );
  await log.commands.get('perfDoctor.showReport')();
  assert.deepEqual(log.errors, []);
  const req = clients[0].sent.find((m) => m.method === 'workspace/executeCommand');
  assert.deepEqual(req.params, { command: 'perfDoctor.report', arguments: [doc.uri.toString()] });
  assert.equal(log.opened.length, 1);
  assert.equal(log.opened[0].language, 'markdown');
  assert.match(log.opened[0].content, /R-P10/);
  const preview = log.executed.find((e) => e.id === 'markdown.showPreview');
  assert.equal(preview.args[0], log.opened[0].uri);
});

test('settings changes: new settings are pushed, a new path restarts the server', { skip }, async (t) => {
  const { log, clients } = await activate(t, { rules: { 'R-P16': 'off' } });
  await log.changeSettings({ path: BIN, rules: { 'R-P24': 'warn' }, lang: 'xx' });
  assert.equal(clients.length, 1);
  const push = clients[0].sent.find((m) => m.method === 'workspace/didChangeConfiguration');
  assert.deepEqual(push.params, { settings: { perfDoctor: { rules: { 'R-P24': 'warn' } } } });
  assert.equal(log.warnings.length, 1);
  assert.match(log.warnings[0], /perfDoctor\.lang must be "en" or "zh"/);

  const link = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pd-bin-')), 'perf-doctor');
  fs.symlinkSync(BIN, link);
  t.after(() => fs.rmSync(path.dirname(link), { recursive: true, force: true }));
  await log.changeSettings({ path: link });
  assert.equal(clients.length, 2, 'restarted');
  assert.equal(clients[0].status.code, 0, 'the old server was shut down cleanly');
  assert.equal(clients[1].serverOptions.run.command, link);
});

test('a missing executable is an error message naming the setting', async (t) => {
  const { log, clients } = await activate(t, { path: path.join(os.tmpdir(), 'no-such-dir', 'perf-doctor') });
  assert.equal(clients.length, 1);
  assert.equal(log.errors.length, 1);
  assert.match(log.errors[0], /cannot start ".*no-such-dir\/perf-doctor lsp" .*check perfDoctor\.path/);
});

test('the fake client module matches the real vscode-languageclient/node where extension.js uses it', () => {
  // Load the real package with a permissive stand-in for `vscode` (it only needs to load).
  const Module = require('module');
  const load = Module._load;
  const anything = () =>
    new Proxy(function () {}, {
      get: (_, k) => (k === Symbol.toPrimitive ? () => '' : k === 'prototype' ? {} : anything()),
      construct: () => anything(),
      apply: () => anything(),
    });
  Module._load = function (request, ...rest) {
    return request === 'vscode' ? anything() : load.call(this, request, ...rest);
  };
  let real;
  try {
    real = require('vscode-languageclient/node');
  } finally {
    Module._load = load;
  }
  const fake = createLanguageClientModule([]);
  assert.equal(typeof real.LanguageClient, 'function');
  assert.equal(real.TransportKind.stdio, fake.TransportKind.stdio);
  for (const name of ['DidOpenTextDocumentNotification', 'DidChangeConfigurationNotification', 'ExecuteCommandRequest'])
    assert.equal(real[name].type.method, fake[name].type.method, name);
  for (const m of ['start', 'stop', 'sendRequest', 'sendNotification'])
    assert.equal(typeof real.LanguageClient.prototype[m], 'function', m);
});
