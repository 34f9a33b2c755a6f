'use strict';
// Stand-ins for the `vscode` API and for vscode-languageclient's LanguageClient, so that
// extension.js runs under `node --test`. The fake LanguageClient talks to the real server
// (through lsp-session.js) rather than answering by itself.

const Module = require('module');
const path = require('path');
const { pathToFileURL } = require('url');
const { Session, vscodeCapabilities } = require('./lsp-session');

class Uri {
  constructor(scheme, fsPath, str) {
    this.scheme = scheme;
    this.fsPath = fsPath;
    this.str = str;
  }
  static file(p) {
    return new Uri('file', p, pathToFileURL(p).href);
  }
  static parse(s) {
    const u = new URL(s);
    return u.protocol === 'file:' ? Uri.file(decodeURIComponent(u.pathname)) : new Uri(u.protocol.slice(0, -1), '', s);
  }
  toString() {
    return this.str;
  }
}

function textDocument(uri, languageId, text, version = 1) {
  return { uri, languageId, version, getText: () => text };
}

// state: {settings: {key: value}, folders: [fsPath], openDialog: () => [Uri] | undefined,
//         activeDocument: textDocument | undefined}
function createVscode(state) {
  const log = { commands: new Map(), executed: [], infos: [], warnings: [], errors: [], opened: [], configListeners: [] };
  let untitled = 0;
  const vscode = {
    Uri,
    workspace: {
      get workspaceFolders() {
        return (state.folders || []).map((f) => ({ uri: Uri.file(f), name: path.basename(f) }));
      },
      getConfiguration: (section) => ({
        get: (key) => (section === 'perfDoctor' ? state.settings[key] : undefined),
      }),
      onDidChangeConfiguration: (fn) => {
        log.configListeners.push(fn);
        return { dispose() {} };
      },
      openTextDocument: async (opts) => {
        const doc = textDocument(new Uri('untitled', '', `untitled:Untitled-${++untitled}`), opts.language, opts.content);
        log.opened.push({ language: opts.language, content: opts.content, uri: doc.uri });
        return doc;
      },
    },
    window: {
      createOutputChannel: () => ({ appendLine() {}, append() {}, dispose() {} }),
      showInformationMessage: (m) => log.infos.push(m),
      showWarningMessage: (m) => log.warnings.push(m),
      showErrorMessage: (m) => log.errors.push(m),
      showOpenDialog: async (opts) => {
        log.dialog = opts;
        return state.openDialog ? state.openDialog() : undefined;
      },
      get activeTextEditor() {
        return state.activeDocument ? { document: state.activeDocument } : undefined;
      },
    },
    commands: {
      registerCommand: (id, fn) => {
        if (log.commands.has(id)) throw new Error(`command '${id}' already exists`);
        log.commands.set(id, fn);
        return { dispose: () => log.commands.delete(id) };
      },
      executeCommand: async (id, ...args) => {
        log.executed.push({ id, args });
      },
    },
  };
  // Configuration change: new settings, then the event the extension listens to.
  log.changeSettings = async (settings) => {
    state.settings = settings;
    for (const fn of log.configListeners) await fn({ affectsConfiguration: (s) => s === 'perfDoctor' });
  };
  return { vscode, log };
}

function method(m) {
  return { method: m };
}

// The subset of vscode-languageclient/node that extension.js uses.
function createLanguageClientModule(clients) {
  class LanguageClient {
    constructor(id, name, serverOptions, clientOptions) {
      Object.assign(this, { id, name, serverOptions, clientOptions, sent: [] });
      this.code2ProtocolConverter = {
        asOpenTextDocumentParams: (doc) => ({
          textDocument: { uri: doc.uri.toString(), languageId: doc.languageId, version: doc.version, text: doc.getText() },
        }),
      };
      clients.push(this);
    }

    async start() {
      const run = this.serverOptions.run;
      this.session = new Session({ command: run.command, args: run.args });
      const folders = this.clientOptions.workspaceFolders || [];
      const init = this.session.initialize({
        rootUri: folders[0] || null,
        capabilities: vscodeCapabilities({ showDocument: true }),
        initializationOptions: this.clientOptions.initializationOptions,
      });
      try {
        this.initializeResult = await init;
      } catch (err) {
        this.session.conn.dispose();
        throw err;
      }
    }

    async stop() {
      if (this.session) this.status = await this.session.close();
    }

    sendRequest(type, params) {
      this.sent.push({ method: type.method, params });
      return this.session.conn.sendRequest(type.method, params);
    }

    sendNotification(type, params) {
      this.sent.push({ method: type.method, params });
      return this.session.conn.sendNotification(type.method, params);
    }
  }
  return {
    LanguageClient,
    TransportKind: { stdio: 0, ipc: 1 },
    DidOpenTextDocumentNotification: { type: method('textDocument/didOpen') },
    DidChangeConfigurationNotification: { type: method('workspace/didChangeConfiguration') },
    ExecuteCommandRequest: { type: method('workspace/executeCommand') },
  };
}

// Loads a fresh extension.js that sees the fakes in place of `vscode` and the client library.
function loadExtension(vscode, languageclient) {
  const load = Module._load;
  Module._load = function (request, ...rest) {
    if (request === 'vscode') return vscode;
    if (request === 'vscode-languageclient/node') return languageclient;
    return load.call(this, request, ...rest);
  };
  try {
    const file = require.resolve('../extension');
    delete require.cache[file];
    return require(file);
  } finally {
    Module._load = load;
  }
}

module.exports = { Uri, textDocument, createVscode, createLanguageClientModule, loadExtension };
