'use strict';
// Arguments and results of the server's workspace/executeCommand commands (lsp/commands.h):
//   perfDoctor.report        [document URI]          -> {markdown}
//   perfDoctor.traceSummary  [trace file or folder]  -> {markdown, uri?}
//   perfDoctor.linkTrace     [script URI, trace or ""] -> {trace, measures}: its measures become
//                            evidence on the script's findings ("" unlinks)
//   perfDoctor.compareTraces [before, after]        -> {markdown}
// `uri` is present when the server also wrote the summary beside the traces, which it does
// only for clients that support window/showDocument (VS Code does).
// Pure: URIs are plain {scheme, fsPath, toString()} objects here.

const { expandPath } = require('./config');

const REPORT = 'perfDoctor.report';
const TRACE_SUMMARY = 'perfDoctor.traceSummary';
const LINK_TRACE = 'perfDoctor.linkTrace';
const COMPARE_TRACES = 'perfDoctor.compareTraces';

// Extension command ids. The server's own ids are registered by vscode-languageclient from
// executeCommandProvider, so these must differ from them.
const OPEN_TRACE_SUMMARY = 'perfDoctor.openTraceSummary';
const SHOW_REPORT = 'perfDoctor.showReport';
const RESTART = 'perfDoctor.restartServer';
const LINK_TRACE_FOLDER = 'perfDoctor.linkTraceFolder';
const UNLINK_TRACE = 'perfDoctor.unlinkTrace';
const COMPARE_TRACE_FOLDERS = 'perfDoctor.compareTraceFolders';

class CommandInputError extends Error {}

// The trace argument from what the user picked: a Uri from the open dialog, a typed path, or
// a Uri passed by another extension / the explorer context menu. Returns a filesystem path.
function traceArgument(input, ctx) {
  if (input && typeof input === 'object') {
    if (input.scheme !== 'file' || !input.fsPath)
      throw new CommandInputError(`perf-doctor reads traces from disk; ${String(input)} is not a file`);
    return input.fsPath;
  }
  if (typeof input !== 'string') throw new CommandInputError('no trace file or folder was given');
  let s = input.trim();
  // Pasted paths often come quoted.
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0]) s = s.slice(1, -1);
  if (!s) throw new CommandInputError('no trace file or folder was given');
  if (s.startsWith('file://')) return s; // the server accepts file URIs as they are
  return expandPath(s, ctx);
}

// The report argument for a document ({uri, scheme, fsPath}). attached: the server has it open,
// so its URI names the editor's text (unsaved edits included); otherwise the server reads the
// file from disk, which needs a file.
function reportArgument(doc, attached) {
  if (!doc) throw new CommandInputError('open a training launch script first');
  if (attached) return String(doc.uri);
  if (doc.scheme === 'file' && doc.fsPath) return doc.fsPath;
  throw new CommandInputError('save the script first: perf-doctor reports on files');
}

function executeParams(command, ...args) {
  return { command, arguments: args };
}

// Checks the shape of perfDoctor.linkTrace's result: {trace: string | null, measures}.
function linkResult(result) {
  if (!result || typeof result !== 'object' || !('trace' in result))
    throw new Error(`${LINK_TRACE}: the server answered without a trace`);
  return { trace: result.trace, measures: result.measures || null };
}

// Checks the shape of a command's result: {markdown: string, uri?: string}.
function summaryResult(result, command) {
  if (!result || typeof result !== 'object' || typeof result.markdown !== 'string')
    throw new Error(`${command}: the server answered without markdown`);
  const out = { markdown: result.markdown };
  if (typeof result.uri === 'string' && result.uri) out.uri = result.uri;
  return out;
}

// A JSON-RPC error (ResponseError) as one line for an error message.
function errorText(err) {
  if (!err) return 'unknown error';
  const msg = err.message || String(err);
  return msg.replace(/^Request workspace\/executeCommand failed with message: /, '');
}

module.exports = {
  REPORT,
  TRACE_SUMMARY,
  LINK_TRACE,
  COMPARE_TRACES,
  OPEN_TRACE_SUMMARY,
  LINK_TRACE_FOLDER,
  UNLINK_TRACE,
  COMPARE_TRACE_FOLDERS,
  SHOW_REPORT,
  RESTART,
  CommandInputError,
  traceArgument,
  reportArgument,
  executeParams,
  summaryResult,
  linkResult,
  errorText,
};
