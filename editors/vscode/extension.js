'use strict';
// VS Code glue for `perf-doctor lsp`. The decisions (settings mapping, which documents the
// server sees, command arguments) live in lib/ and are tested without VS Code.

const os = require('os');
const vscode = require('vscode');
const {
  LanguageClient,
  TransportKind,
  DidOpenTextDocumentNotification,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
} = require('vscode-languageclient/node');

const config = require('./lib/config');
const selector = require('./lib/selector');
const commands = require('./lib/commands');

const SECTION = 'perfDoctor';
const RAW_KEYS = ['path', 'gpu', 'lang', 'modelConfigDir', 'extraRules', 'docsUrl', 'rules', 'disabledRules', 'syntaxDiagnostics'];

function readSettings() {
  const c = vscode.workspace.getConfiguration(SECTION);
  const raw = {};
  for (const k of RAW_KEYS) raw[k] = c.get(k);
  return raw;
}

// Settings the extension applies itself (not sent to the server).
function clientSetting(key) {
  return vscode.workspace.getConfiguration(SECTION).get(key);
}

function pathContext() {
  const folders = vscode.workspace.workspaceFolders;
  return { home: os.homedir(), workspaceFolder: folders && folders.length ? folders[0].uri.fsPath : undefined };
}

// The plain view of a TextDocument that lib/selector.js works on.
function plain(document) {
  return {
    uri: document.uri.toString(),
    scheme: document.uri.scheme,
    fsPath: document.uri.fsPath,
    languageId: document.languageId,
    getText: () => document.getText(),
  };
}

class Extension {
  constructor(context) {
    this.context = context;
    this.client = undefined;
    this.server = undefined; // {command, args} the running client was started with
    this.tracker = new selector.AttachTracker();
    this.output = vscode.window.createOutputChannel('perf-doctor');
    context.subscriptions.push(this.output);
  }

  settings() {
    const { settings, problems } = config.serverSettings(readSettings(), pathContext());
    if (problems.length) {
      this.output.appendLine(`settings ignored:\n  ${problems.join('\n  ')}`);
      vscode.window.showWarningMessage(`perf-doctor: ${problems[0]}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}`);
    }
    return settings;
  }

  middleware() {
    const tracker = this.tracker;
    return {
      didOpen: (document, next) => (tracker.onOpen(plain(document)) === 'open' ? next(document) : Promise.resolve()),
      didChange: (event, next) => {
        const action = tracker.onChange(plain(event.document));
        if (action === 'forward') return next(event);
        if (action === 'open') {
          // It now contains a train invocation: the server has never seen it, so send it whole.
          const params = this.client.code2ProtocolConverter.asOpenTextDocumentParams(event.document);
          return this.client.sendNotification(DidOpenTextDocumentNotification.type, params);
        }
        return Promise.resolve();
      },
      didClose: (document, next) => (tracker.onClose(plain(document)) === 'forward' ? next(document) : Promise.resolve()),
      provideHover: (document, position, token, next) =>
        tracker.has(plain(document)) ? next(document, position, token) : null,
      provideCodeActions: (document, range, context, token, next) =>
        tracker.has(plain(document)) ? next(document, range, context, token) : [],
      // Navigation, outline, rename, inlay hints and the code lens: only on documents the
      // server has (another shell script would get an empty answer, or a rename refused).
      provideDefinition: (document, position, token, next) =>
        tracker.has(plain(document)) ? next(document, position, token) : null,
      provideReferences: (document, position, options, token, next) =>
        tracker.has(plain(document)) ? next(document, position, options, token) : [],
      provideDocumentSymbols: (document, token, next) => (tracker.has(plain(document)) ? next(document, token) : []),
      prepareRename: (document, position, token, next) =>
        tracker.has(plain(document)) ? next(document, position, token) : null,
      provideRenameEdits: (document, position, newName, token, next) =>
        tracker.has(plain(document)) ? next(document, position, newName, token) : null,
      provideInlayHints: (document, range, token, next) =>
        tracker.has(plain(document)) && clientSetting('inlayHints') !== false ? next(document, range, token) : [],
      provideCodeLenses: (document, token, next) =>
        tracker.has(plain(document)) && clientSetting('memoryBudgetLens') !== false ? next(document, token) : [],
      workspace: {
        // The server asks for the `perfDoctor` section; answer with the mapped settings, not
        // the raw ones (which hold `path` and empty strings the server would reject).
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) return answers;
          return params.items.map((item, i) => (item.section === SECTION ? this.settings() : answers[i]));
        },
      },
    };
  }

  async start() {
    const server = config.serverCommand(readSettings(), pathContext());
    const executable = { command: server.command, args: server.args, transport: TransportKind.stdio };
    this.tracker.clear();
    this.client = new LanguageClient(
      SECTION,
      'perf-doctor',
      { run: executable, debug: executable },
      {
        documentSelector: selector.DOCUMENT_SELECTOR,
        initializationOptions: this.settings(),
        outputChannel: this.output,
        middleware: this.middleware(),
      },
    );
    this.server = server;
    try {
      await this.client.start();
    } catch (err) {
      const how = server.command === 'perf-doctor' ? 'put perf-doctor on PATH or set perfDoctor.path' : 'check perfDoctor.path';
      vscode.window.showErrorMessage(`perf-doctor: cannot start "${server.command} lsp" (${commands.errorText(err)}); ${how}.`);
      this.client = undefined;
    }
  }

  async stop() {
    const c = this.client;
    this.client = undefined;
    if (c) await c.stop().catch(() => undefined);
  }

  async restart() {
    await this.stop();
    await this.start();
  }

  async onConfigurationChanged(event) {
    if (!event.affectsConfiguration(SECTION)) return;
    const server = config.serverCommand(readSettings(), pathContext());
    if (!this.client || !this.server || config.needsRestart(this.server, server)) {
      await this.restart();
      return;
    }
    await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: this.settings() } });
  }

  async execute(command, ...args) {
    return commands.summaryResult(await this.request(command, ...args), command);
  }

  async request(command, ...args) {
    if (!this.client) await this.start();
    if (!this.client) throw new Error('the perf-doctor server is not running');
    return this.client.sendRequest(ExecuteCommandRequest.type, commands.executeParams(command, ...args));
  }

  async pickTrace(label, title) {
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: true,
      canSelectFolders: true,
      canSelectMany: false,
      openLabel: label,
      title,
    });
    return picked && picked.length ? picked[0] : undefined;
  }

  // perf-doctor: Link a trace to this script. Its measures become evidence on the findings.
  async linkTrace(arg, unlink = false) {
    await this.run(async () => {
      const editor = vscode.window.activeTextEditor;
      const doc = editor && plain(editor.document);
      if (!doc || !this.tracker.has(doc)) throw new commands.CommandInputError('open a training launch script first');
      let trace = '';
      if (!unlink) {
        const input = arg || (await this.pickTrace('Link', 'perf-doctor: the trace (file or folder) of this script\'s run'));
        if (!input) return;
        trace = commands.traceArgument(input, pathContext());
      }
      const res = commands.linkResult(await this.request(commands.LINK_TRACE, String(doc.uri), trace));
      // Another job's trace: linked, backing nothing; the server's own warning says so.
      if (res.mismatch) return;
      if (vscode.window.showInformationMessage)
        vscode.window.showInformationMessage(res.trace ? `perf-doctor: findings now carry what ${res.trace} measured` : 'perf-doctor: trace unlinked');
    });
  }

  // perf-doctor: Compare traces (before, after).
  async compareTraces(before, after) {
    await this.run(async () => {
      const b = before || (await this.pickTrace('Before', 'perf-doctor: the trace before the change'));
      if (!b) return;
      const a = after || (await this.pickTrace('After', 'perf-doctor: the trace after the change'));
      if (!a) return;
      const ctx = pathContext();
      await this.showMarkdown(await this.execute(commands.COMPARE_TRACES, commands.traceArgument(b, ctx), commands.traceArgument(a, ctx)));
    });
  }

  // The markdown in a preview: the file the server wrote (it has already asked VS Code to open
  // it with window/showDocument), or an untitled markdown document.
  async showMarkdown(result) {
    let uri;
    if (result.uri) {
      uri = vscode.Uri.parse(result.uri);
    } else {
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: result.markdown });
      uri = doc.uri;
    }
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  }

  async openTraceSummary(arg) {
    let input = arg;
    if (!input) {
      const picked = await vscode.window.showOpenDialog({
        canSelectFiles: true,
        canSelectFolders: true,
        canSelectMany: false,
        openLabel: 'Summarise',
        title: 'perf-doctor: a PyTorch-profiler trace (.json / .json.gz) or a folder of them',
      });
      if (!picked || picked.length === 0) return;
      input = picked[0];
    }
    await this.run(async () => this.showMarkdown(await this.execute(commands.TRACE_SUMMARY, commands.traceArgument(input, pathContext()))));
  }

  async showReport(arg) {
    await this.run(async () => {
      const editor = vscode.window.activeTextEditor;
      const doc = arg && arg.scheme ? { uri: arg.toString(), scheme: arg.scheme, fsPath: arg.fsPath } : editor && plain(editor.document);
      const attached = !!doc && this.tracker.has(doc);
      await this.showMarkdown(await this.execute(commands.REPORT, commands.reportArgument(doc, attached)));
    });
  }

  // perf-doctor: Show memory budget, and the memory-budget code lens' command (its argument:
  // the script's URI): the breakdown per GPU in a markdown preview.
  async showMemoryBudget(arg) {
    await this.run(async () => {
      const editor = vscode.window.activeTextEditor;
      const uri = commands.memoryBudgetArgument(arg, editor && plain(editor.document), (d) => this.tracker.has(d));
      await this.showMarkdown(await this.execute(commands.MEMORY_BUDGET, uri));
    });
  }

  async run(fn) {
    try {
      await fn();
    } catch (err) {
      vscode.window.showErrorMessage(`perf-doctor: ${commands.errorText(err)}`);
    }
  }
}

let extension;

async function activate(context) {
  extension = new Extension(context);
  context.subscriptions.push(
    vscode.commands.registerCommand(commands.OPEN_TRACE_SUMMARY, (arg) => extension.openTraceSummary(arg)),
    vscode.commands.registerCommand(commands.SHOW_REPORT, (arg) => extension.showReport(arg)),
    vscode.commands.registerCommand(commands.RESTART, () => extension.restart()),
    vscode.commands.registerCommand(commands.LINK_TRACE_FOLDER, (arg) => extension.linkTrace(arg)),
    vscode.commands.registerCommand(commands.UNLINK_TRACE, () => extension.linkTrace(undefined, true)),
    vscode.commands.registerCommand(commands.COMPARE_TRACE_FOLDERS, (a, b) => extension.compareTraces(a, b)),
    vscode.commands.registerCommand(commands.SHOW_MEMORY_BUDGET, (arg) => extension.showMemoryBudget(arg)),
    vscode.workspace.onDidChangeConfiguration((e) => extension.onConfigurationChanged(e)),
  );
  await extension.start();
  return extension;
}

function deactivate() {
  const e = extension;
  extension = undefined;
  return e ? e.stop() : undefined;
}

module.exports = { activate, deactivate };
