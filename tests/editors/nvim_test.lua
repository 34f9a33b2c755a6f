-- Headless Neovim (0.7.2 and newer) driving editors/nvim against the built server.
--   nvim --headless -u NONE -i NONE -n -c "luafile tests/editors/nvim_test.lua"
-- Environment: PD_NVIM_PLUGIN (editors/nvim), PERF_DOCTOR_BIN, PD_SCRIPT (a copy of the
-- fixture script, inside a scripts/training/ tree), PD_TRACE (a trace folder).
-- Prints one line per check; exits with :cquit 1 on the first failure (2: setup problem).
local out = function(s)
  io.stdout:write(s .. '\n')
  io.stdout:flush()
end

local failed = false
local function check(cond, what, detail)
  if cond then
    out('ok - ' .. what)
  else
    out('FAIL - ' .. what .. (detail and (': ' .. detail) or ''))
    failed = true
    error('check failed', 0)
  end
end

local function env(name)
  local v = vim.env[name]
  if not v or v == '' then
    out('FAIL - environment variable ' .. name .. ' is not set')
    vim.cmd('cquit 2')
  end
  return v
end

local function ms_since(t0)
  return (vim.loop.hrtime() - t0) / 1e6
end

local function codes(diags)
  local set, list = {}, {}
  for _, d in ipairs(diags) do
    if d.code and not set[d.code] then
      set[d.code] = true
      table.insert(list, tostring(d.code))
    end
  end
  table.sort(list)
  return set, table.concat(list, ' ')
end

local function find_line(buf, needle)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if l:find(needle, 1, true) then
      return i - 1, l
    end
  end
end

local function run()
  local plugin, bin, script, trace = env('PD_NVIM_PLUGIN'), env('PERF_DOCTOR_BIN'), env('PD_SCRIPT'), env('PD_TRACE')
  out('nvim ' .. tostring(vim.version().major) .. '.' .. vim.version().minor .. '.' .. vim.version().patch
    .. (vim.lsp.start and ' (vim.lsp.start)' or ' (start_client + buf_attach_client)'))
  vim.opt.runtimepath:append(plugin)
  vim.cmd('filetype on') -- -u NONE leaves filetype detection off

  -- Count publishes per URI: a reliable "the server has answered" signal, even when empty.
  local publishes = {}
  local default_publish = vim.lsp.handlers['textDocument/publishDiagnostics']
  vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
    publishes[result.uri] = (publishes[result.uri] or 0) + 1
    return default_publish(err, result, ctx, config)
  end

  -- Any window/showMessage (the server's warning about settings it rejected) fails the test.
  local messages = {}
  vim.lsp.handlers['window/showMessage'] = function(_, result)
    table.insert(messages, result.message)
  end

  local pd = require('perf_doctor')
  check(pd.contains_train_invocation({ '  python3 -m relax.entrypoints.train \\' }), 'invocation detected')
  check(not pd.contains_train_invocation({ '# python3 -m relax.entrypoints.train' }), 'commented-out invocation ignored')
  check(not pd.contains_train_invocation({ 'python3 -m relax.entrypoints.train_sft' }), 'other module ignored')
  check(pd.is_training_script_path(script), 'fixture path is a training script')
  check(not pd.is_training_script_path('/r/scripts/models/qwen3-4B.sh'), 'model configs are not training scripts')
  -- No settings must still be a JSON object for initializationOptions (the server rejects []).
  check(vim.fn.json_encode((pd.server_settings({}))) == '{}', 'empty settings encode as {}', vim.fn.json_encode((pd.server_settings({}))))
  local mapped, problems = pd.server_settings({ gpu = '', lang = 'zh', rules = {}, disabledRules = { 'R-P03' }, syntaxDiagnostics = 'yes' })
  check(vim.fn.json_encode(mapped) == vim.fn.json_encode({ lang = 'zh', disabledRules = { 'R-P03' } }), 'settings mapping drops empty values', vim.fn.json_encode(mapped))
  check(#problems == 1 and problems[1]:find('syntaxDiagnostics', 1, true), 'a wrong type is reported', table.concat(problems, '; '))

  pd.setup({ cmd = { bin, 'lsp' }, settings = { lang = 'en', rules = { ['R-P16'] = 'off' }, gpu = '' } })

  -- 0. :PerfDoctorTrace before any script is open: the plugin starts a server of its own
  -- (attached to no buffer), waits for it to initialise, then asks.
  -- The current buffer once its name starts with prefix and it has content, or false.
  local function wait_buffer(prefix)
    local found
    local ok = vim.wait(20000, function()
      local b = vim.api.nvim_get_current_buf()
      if vim.api.nvim_buf_get_name(b):find(prefix, 1, true) and vim.api.nvim_buf_line_count(b) > 1 then
        found = b
        return true
      end
    end, 10)
    return ok and found
  end
  local function wait_trace_buffer() return wait_buffer('perf-doctor://trace/') end
  local t00 = vim.loop.hrtime()
  vim.cmd('PerfDoctorTrace ' .. vim.fn.fnameescape(trace))
  local early = wait_trace_buffer()
  check(early, ':PerfDoctorTrace with no server running yet opens a buffer')
  out(string.format('# trace summary (server started for it) after %.0f ms', ms_since(t00)))
  check(vim.api.nvim_buf_get_lines(early, 0, 1, false)[1] == '# perf-doctor trace: hta-trace-filter-2rank', 'summary title')
  vim.cmd('only')
  vim.cmd('enew')

  -- 1. Diagnostics with the expected rule codes.
  local t0 = vim.loop.hrtime()
  vim.cmd('edit ' .. vim.fn.fnameescape(script))
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  check(vim.bo[buf].filetype == 'sh', 'filetype sh', vim.bo[buf].filetype)
  local got = vim.wait(20000, function() return (publishes[uri] or 0) > 0 end, 10)
  check(got, 'publishDiagnostics within 20 s')
  out(string.format('# first publishDiagnostics after %.0f ms (spawn, initialize, didOpen, analysis)', ms_since(t0)))
  local attached = {}
  for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if vim.lsp.buf_is_attached(buf, c.id) then table.insert(attached, c.name) end
  end
  check(#attached == 1 and attached[1] == 'perf-doctor', 'one perf-doctor client attached', table.concat(attached, ','))
  local diags = vim.diagnostic.get(buf)
  local set, list = codes(diags)
  out('# diagnostics: ' .. list)
  for _, c in ipairs({ 'R-P10', 'R-P24', 'R-P01', 'R-P17' }) do
    check(set[c], 'diagnostic ' .. c, list)
  end
  check(not set['R-P16'], 'R-P16 switched off by settings.rules', list)
  local p10
  for _, d in ipairs(diags) do
    if d.code == 'R-P10' then p10 = d end
  end
  check(p10.severity == vim.diagnostic.severity.WARN, 'R-P10 is a warning')
  check(p10.source == 'perf-doctor', 'source perf-doctor', tostring(p10.source))
  local tp_line, tp_text = find_line(buf, '--tensor-model-parallel-size')
  check(p10.lnum == tp_line, 'R-P10 on the --tensor-model-parallel-size line', tostring(p10.lnum))

  -- 2. Hover on the flag returns its documentation.
  local col = tp_text:find('--', 1, true) + 3
  local hov = vim.lsp.buf_request_sync(buf, 'textDocument/hover',
    { textDocument = { uri = uri }, position = { line = tp_line, character = col } }, 5000)
  local text = ''
  for _, r in pairs(hov or {}) do
    if r.result and r.result.contents then text = text .. (r.result.contents.value or '') end
  end
  check(text:find('**--tensor-model-parallel-size**', 1, true), 'hover names the flag', text:sub(1, 200))
  check(text:find('default `1`', 1, true) and text:find('Megatron-LM option', 1, true), 'hover has the flag documentation (type, default, parser)', text:sub(1, 300))
  check(text:find('Resolved value:** `2`', 1, true), 'hover has the resolved value')

  -- 2a. Completion on the same word (typed so far: "--te"): the flag, then its documentation.
  local cres = vim.lsp.buf_request_sync(buf, 'textDocument/completion',
    { textDocument = { uri = uri }, position = { line = tp_line, character = col } }, 5000)
  local item
  for _, r in pairs(cres or {}) do
    for _, it in ipairs((r.result and r.result.items) or {}) do
      if it.label == '--tensor-model-parallel-size' then item = it end
    end
  end
  check(item ~= nil and item.detail == 'int · default 1 · Megatron-LM option', 'completion offers the flag with its type and default',
        item and item.detail or 'no item')
  if item then
    local rres = vim.lsp.buf_request_sync(buf, 'completionItem/resolve', item, 5000)
    local doc = ''
    for _, r in pairs(rres or {}) do
      if r.result and r.result.documentation then doc = r.result.documentation.value or '' end
    end
    check(doc:find('Intra-layer model parallelism', 1, true), 'completionItem/resolve gives its help', doc:sub(1, 200))
  end

  -- 2b. :PerfDoctorLinkTrace backs the findings with the trace's measures; unlinking drops them;
  -- :PerfDoctorCompare shows before / after in a scratch buffer.
  local function measured(b)
    for _, d in ipairs(vim.diagnostic.get(b)) do
      if d.message:find('Measured (trace, ', 1, true) then return d end
    end
  end
  check(vim.api.nvim_get_current_buf() == buf, 'in the script window (link)')
  -- The 2-rank set is of a 128-rank job: linked, said not to be this script's, backs nothing.
  local before_messages = #messages
  local link_result
  pd.link_trace(trace, function(r) link_result = r end)
  got = vim.wait(20000, function() return link_result ~= nil end, 10)
  check(got and type(link_result.mismatch) == 'string' and link_result.mismatch:find("not this script's", 1, true),
    ':PerfDoctorLinkTrace of another job\'s trace: mismatch', vim.inspect(link_result))
  check(vim.wait(5000, function() return #messages > before_messages end, 10) and messages[#messages] == link_result.mismatch,
    'and the server warns (window/showMessage)', table.concat(messages, ' | '))
  out('# ' .. link_result.mismatch:sub(1, 160))
  table.remove(messages)
  vim.wait(500, function() return false end, 10)
  check(measured(buf) == nil, 'and no finding carries its measures')
  -- HTA's trace-diff control is of an 8-rank job.
  local control = vim.fn.fnamemodify(trace, ':h') .. '/hta-trace-diff-control'
  vim.cmd('PerfDoctorLinkTrace ' .. vim.fn.fnameescape(control))
  got = vim.wait(20000, function() return measured(buf) ~= nil end, 10)
  check(got, ':PerfDoctorLinkTrace: a diagnostic carries what the trace measured')
  out('# evidence: ' .. (measured(buf) and measured(buf).message:match('Measured[^\n]*') or ''))
  vim.cmd('PerfDoctorUnlinkTrace')
  got = vim.wait(20000, function() return measured(buf) == nil and #vim.diagnostic.get(buf) > 0 end, 10)
  check(got, ':PerfDoctorUnlinkTrace: the evidence goes away')
  vim.cmd('PerfDoctorCompare ' .. vim.fn.fnameescape(trace) .. ' ' .. vim.fn.fnameescape(trace))
  local cbuf = wait_buffer('perf-doctor://compare/')
  check(cbuf, ':PerfDoctorCompare opens a buffer')
  check(vim.api.nvim_buf_get_lines(cbuf, 0, 1, false)[1] == '# Trace comparison', 'comparison title')
  vim.cmd('wincmd p')
  check(vim.api.nvim_get_current_buf() == buf, 'back in the script window (after the comparison)')

  -- 3. The quick fix: apply its edit, the buffer changes, the diagnostic disappears.
  local lsp_diag = {
    range = { start = { line = p10.lnum, character = p10.col }, ['end'] = { line = p10.end_lnum, character = p10.end_col } },
    severity = 2, code = p10.code, source = p10.source, message = p10.message,
  }
  local res = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
    textDocument = { uri = uri }, range = lsp_diag.range,
    context = { diagnostics = { lsp_diag }, only = { 'quickfix' } },
  }, 5000)
  local fix, titles = nil, {}
  for _, r in pairs(res or {}) do
    for _, a in ipairs(r.result or {}) do
      table.insert(titles, a.title)
      for _, d in ipairs(a.diagnostics or {}) do
        if d.code == 'R-P10' and a.isPreferred and a.edit then fix = fix or a end
      end
    end
  end
  check(fix ~= nil, 'preferred quick fix for R-P10', table.concat(titles, ' | '))
  out('# quick fix: ' .. fix.title)
  local before_lines = vim.api.nvim_buf_line_count(buf)
  local before_publishes = publishes[uri]
  local t1 = vim.loop.hrtime()
  vim.lsp.util.apply_workspace_edit(fix.edit, 'utf-16')
  check(vim.api.nvim_buf_line_count(buf) == before_lines + 1, 'the edit added a line')
  local next_line = vim.api.nvim_buf_get_lines(buf, tp_line + 1, tp_line + 2, false)[1]
  check(next_line:match('^%s+%-%-sequence%-parallel$'), 'the buffer now has --sequence-parallel after the TP flag', next_line)
  check(vim.bo[buf].modified, 'the buffer is modified (not written)')
  got = vim.wait(20000, function()
    return publishes[uri] > before_publishes and not codes(vim.diagnostic.get(buf))['R-P10']
  end, 10)
  set, list = codes(vim.diagnostic.get(buf))
  check(got, 'R-P10 disappears after the fix', list)
  check(set['R-P24'] and set['R-P01'], 'the other findings stay', list)
  out(string.format('# edit -> publish without R-P10: %.0f ms (includes the client\'s 150 ms debounce)', ms_since(t1)))

  -- 4. :PerfDoctorTrace opens the summary in a scratch buffer.
  local summary_file = trace .. '/perf-doctor-trace-summary.md'
  local had_summary = vim.fn.filereadable(summary_file) == 1
  local t2 = vim.loop.hrtime()
  vim.cmd('PerfDoctorTrace ' .. vim.fn.fnameescape(trace))
  local tbuf = wait_trace_buffer()
  check(tbuf, ':PerfDoctorTrace opens a buffer')
  check(tbuf == early, 'the same scratch buffer is reused')
  out(string.format('# trace summary shown after %.0f ms', ms_since(t2)))
  local lines = vim.api.nvim_buf_get_lines(tbuf, 0, -1, false)
  local all = table.concat(lines, '\n')
  check(lines[1] == '# perf-doctor trace: hta-trace-filter-2rank', 'summary title', lines[1])
  check(all:find('sampled_rank-0.json.gz', 1, true) and all:find('sampled_rank-1.json.gz', 1, true), 'summary lists both ranks')
  check(all:find('HTA parity', 1, true), 'summary has the measured section')
  check(vim.bo[tbuf].filetype == 'markdown' and vim.bo[tbuf].buftype == 'nofile', 'scratch markdown buffer')
  check(had_summary or vim.fn.filereadable(summary_file) == 0, 'nothing written beside the traces')

  -- 5. :PerfDoctorReport on the edited script: its current text, not the file on disk.
  vim.cmd('wincmd p')
  check(vim.api.nvim_get_current_buf() == buf, 'back in the script window')
  vim.cmd('PerfDoctorReport')
  local rbuf
  got = vim.wait(20000, function()
    local b = vim.api.nvim_get_current_buf()
    if vim.api.nvim_buf_get_name(b):find('perf-doctor://report/', 1, true) then
      rbuf = b
      return true
    end
  end, 10)
  check(got, ':PerfDoctorReport opens a buffer')
  all = table.concat(vim.api.nvim_buf_get_lines(rbuf, 0, -1, false), '\n')
  check(all:find('R-P24', 1, true) and not all:find('R-P10', 1, true), 'report of the edited buffer (R-P24, no R-P10)')

  -- 6. Settings changed at run time reach the server.
  before_publishes = publishes[uri]
  pd.set_settings({ rules = { ['R-P16'] = 'off', ['R-P24'] = 'off' } })
  got = vim.wait(20000, function()
    return publishes[uri] > before_publishes and not codes(vim.diagnostic.get(buf))['R-P24']
  end, 10)
  check(got, 'set_settings switches R-P24 off', select(2, codes(vim.diagnostic.get(buf))))
  -- Empty settings must reach the server as an empty object (an empty Lua table would encode
  -- as [] and be rejected), and bring the defaults back.
  before_publishes = publishes[uri]
  pd.set_settings({})
  got = vim.wait(20000, function()
    local now = codes(vim.diagnostic.get(buf))
    return publishes[uri] > before_publishes and now['R-P24'] and now['R-P16']
  end, 10)
  check(got, 'set_settings({}) restores the defaults (R-P16, R-P24 back)', select(2, codes(vim.diagnostic.get(buf))))
  check(#messages == 0, 'the server accepted every setting (no window/showMessage)', table.concat(messages, ' | '))

  -- 7. Other shell scripts are left alone until they launch relax.entrypoints.train.
  local function perf_doctor_attached(b)
    for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
      if c.name == 'perf-doctor' and vim.lsp.buf_is_attached(b, c.id) then return true end
    end
    return false
  end
  local other = vim.fn.fnamemodify(script, ':h:h:h:h') .. '/tools/cleanup.sh'
  vim.fn.mkdir(vim.fn.fnamemodify(other, ':h'), 'p')
  vim.fn.writefile({ '#!/bin/bash', 'rm -rf /tmp/x' }, other)
  vim.cmd('edit ' .. vim.fn.fnameescape(other))
  local obuf = vim.api.nvim_get_current_buf()
  vim.wait(200, function() return false end, 10)
  check(vim.bo[obuf].filetype == 'sh' and not perf_doctor_attached(obuf), 'a plain shell script is not attached')
  vim.api.nvim_buf_set_lines(obuf, -1, -1, false, { 'python3 -m relax.entrypoints.train --colocate' })
  vim.cmd('silent write')
  -- 0.7 lists a client only once it has initialised.
  check(vim.wait(20000, function() return perf_doctor_attached(obuf) end, 10),
    'attached once it launches relax.entrypoints.train and is written')
  local ouri = vim.uri_from_bufnr(obuf)
  check(vim.wait(20000, function() return (publishes[ouri] or 0) > 0 end, 10), 'and diagnosed')

  -- 7b. Keymaps, navigation, rename and the memory-budget code lens on the (edited) script.
  vim.o.hidden = true
  vim.cmd('buffer ' .. buf)
  check(vim.api.nvim_get_current_buf() == buf, 'back in the script buffer (keymaps)')
  for _, key in ipairs({ 'K', 'gd', 'gr', '<Leader>rn', '<Leader>ca', '<Leader>cl', '<Leader>pr', '<Leader>pm' }) do
    local m = vim.fn.maparg(key, 'n', false, true)
    check(type(m) == 'table' and m.buffer == 1 and (m.desc or ''):find('^perf%-doctor: '), 'buffer-local keymap ' .. key, vim.inspect(m))
  end
  check(vim.fn.maparg('gd', 'n', false, true).buffer ~= 1 or vim.api.nvim_get_current_buf() == buf, 'keymaps are on the script only')
  local ckpt_def = find_line(buf, 'CKPT_ARGS=(')
  local ckpt_use, ckpt_text = find_line(buf, '"${CKPT_ARGS[@]}"')
  local ckpt_col = ckpt_text:find('CKPT_ARGS', 1, true) + 1
  vim.api.nvim_win_set_cursor(0, { ckpt_use + 1, ckpt_col })
  vim.cmd('normal gd')
  got = vim.wait(10000, function() return vim.api.nvim_win_get_cursor(0)[1] == ckpt_def + 1 end, 10)
  check(got, 'gd on "${CKPT_ARGS[@]}" jumps to CKPT_ARGS=(', vim.inspect(vim.api.nvim_win_get_cursor(0)))
  -- The spread of an array the sourced model config defines goes to that file.
  local model_use, model_text = find_line(buf, '"${MODEL_ARGS[@]}"')
  local dres = vim.lsp.buf_request_sync(buf, 'textDocument/definition',
    { textDocument = { uri = uri }, position = { line = model_use, character = model_text:find('MODEL_ARGS', 1, true) + 1 } }, 5000)
  local targets = {}
  for _, r in pairs(dres or {}) do
    for _, l in ipairs(r.result or {}) do table.insert(targets, l.uri or l.targetUri) end
  end
  check(#targets >= 1 and targets[1]:find('/scripts/models/qwen3%-4B%.sh$'), 'definition of MODEL_ARGS is in the sourced model config', table.concat(targets, ' '))
  vim.fn.setqflist({}, 'r')
  vim.api.nvim_win_set_cursor(0, { ckpt_use + 1, ckpt_col })
  vim.cmd('normal gr')
  got = vim.wait(10000, function() return #vim.fn.getqflist() >= 2 end, 10)
  check(got, 'gr lists the definition and the use of CKPT_ARGS', tostring(#vim.fn.getqflist()))
  vim.cmd('cclose')
  vim.api.nvim_set_current_buf(buf)
  -- Rename (what <leader>rn does, with the name given instead of typed), then back.
  vim.api.nvim_win_set_cursor(0, { ckpt_use + 1, ckpt_col })
  vim.lsp.buf.rename('CHECKPOINT_ARGS')
  got = vim.wait(10000, function()
    local a = vim.api.nvim_buf_get_lines(buf, ckpt_def, ckpt_def + 1, false)[1]
    local b = vim.api.nvim_buf_get_lines(buf, ckpt_use, ckpt_use + 1, false)[1]
    return a:find('CHECKPOINT_ARGS=(', 1, true) and b:find('"${CHECKPOINT_ARGS[@]}"', 1, true)
  end, 10)
  check(got, 'rename CKPT_ARGS -> CHECKPOINT_ARGS changes the definition and the spread')
  vim.api.nvim_win_set_cursor(0, { ckpt_use + 1, ckpt_col })
  vim.lsp.buf.rename('CKPT_ARGS')
  got = vim.wait(10000, function() return find_line(buf, '"${CKPT_ARGS[@]}"') == ckpt_use and find_line(buf, 'CKPT_ARGS=(') == ckpt_def end, 10)
  check(got, 'and renamed back')
  -- The code lens on line 1, and what running it opens.
  local lens
  got = vim.wait(10000, function()
    pcall(vim.lsp.codelens.refresh)
    for _, l in ipairs(vim.lsp.codelens.get(buf) or {}) do
      if l.command and l.command.title:find('Memory per GPU', 1, true) then lens = l end
    end
    return lens ~= nil
  end, 200)
  check(got and lens.range.start.line == 0, 'the memory-budget code lens is on line 1', lens and lens.command.title)
  out('# code lens: ' .. lens.command.title)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('normal ' .. vim.api.nvim_replace_termcodes('<Leader>cl', true, false, true))
  local mbuf = wait_buffer('perf-doctor://memory/')
  check(mbuf, 'running the code lens (<leader>cl) opens the memory budget')
  local mtext = table.concat(vim.api.nvim_buf_get_lines(mbuf, 0, -1, false), '\n')
  check(mtext:find('static', 1, true) and mtext:find('activations', 1, true) and mtext:find('KV', 1, true), 'the breakdown: static, activations, KV', mtext:sub(1, 300))
  vim.cmd('wincmd p')
  check(vim.api.nvim_get_current_buf() == buf, 'back in the script window (after the memory budget)')

  -- 7c. A line with a critical and a warning: the sign and the virtual text are the critical's,
  -- with its rule id, and the virtual text is cut at a word.
  local tp3 = vim.fn.fnamemodify(script, ':h') .. '/run-tp3.sh'
  local tp3_lines = vim.fn.readfile(script)
  for i, l in ipairs(tp3_lines) do
    tp3_lines[i] = l:gsub('%-%-tensor%-model%-parallel%-size 2', '--tensor-model-parallel-size 3')
  end
  vim.fn.writefile(tp3_lines, tp3)
  vim.cmd('edit ' .. vim.fn.fnameescape(tp3))
  local cbuf3 = vim.api.nvim_get_current_buf()
  local curi = vim.uri_from_bufnr(cbuf3)
  check(vim.wait(20000, function() return (publishes[curi] or 0) > 0 end, 10), 'the TP=3 script is diagnosed')
  local tp3_line = find_line(cbuf3, '--tensor-model-parallel-size 3')
  local sev_on_line = {}
  for _, d in ipairs(vim.diagnostic.get(cbuf3, { lnum = tp3_line })) do
    sev_on_line[d.severity] = (sev_on_line[d.severity] or '') .. ' ' .. tostring(d.code)
  end
  out('# TP=3 line: errors' .. (sev_on_line[vim.diagnostic.severity.ERROR] or ' none') .. ', warnings' .. (sev_on_line[vim.diagnostic.severity.WARN] or ' none'))
  check(sev_on_line[vim.diagnostic.severity.ERROR] and sev_on_line[vim.diagnostic.severity.WARN], 'a critical and a warning on the TP line')
  local placed = vim.fn.sign_getplaced(cbuf3, { group = '*', lnum = tp3_line + 1 })[1].signs
  table.sort(placed, function(a, b) return a.priority > b.priority end)
  check(#placed > 0 and placed[1].name == 'DiagnosticSignError', 'the sign shown is the critical\'s', vim.inspect(placed))
  local client3
  for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if c.name == 'perf-doctor' and vim.lsp.buf_is_attached(cbuf3, c.id) then client3 = c end
  end
  local dns = vim.diagnostic.get_namespace(vim.lsp.diagnostic.get_namespace(client3.id))
  local vt_ns = dns.user_data.virt_text_ns
  local marks = vim.api.nvim_buf_get_extmarks(cbuf3, vt_ns, { tp3_line, 0 }, { tp3_line, -1 }, { details = true })
  check(#marks == 1, 'one virtual text on the TP line', tostring(#marks))
  local chunks = marks[1][4].virt_text
  local last = chunks[#chunks]
  out('# virtual text: ' .. last[1])
  check(last[2] == 'DiagnosticVirtualTextError', 'the virtual text is the critical\'s', last[2])
  check(last[1]:find('R%-C0%d: '), 'with its rule id in front', last[1])
  local room3 = vim.api.nvim_win_get_width(0) - vim.fn.strdisplaywidth(vim.api.nvim_buf_get_lines(cbuf3, tp3_line, tp3_line + 1, false)[1])
  local shown = 0
  for _, c in ipairs(chunks) do shown = shown + vim.fn.strdisplaywidth(c[1]) end
  check(shown <= room3, 'the virtual text fits after the line', shown .. ' > ' .. room3)
  -- The cut at a word, on the messages themselves.
  for _, d in ipairs(vim.diagnostic.get(cbuf3)) do
    local full = (d.code and (d.code .. ': ') or '') .. d.message:match('^[^\n]*')
    for _, w in ipairs({ 30, 44, 61 }) do
      local f = pd.format_diagnostic(d, w)
      check(vim.fn.strdisplaywidth(f) <= w, 'cut fits ' .. w .. ' cells', f)
      if f ~= full then
        local kept = f:gsub('…$', '')
        local after = full:sub(#kept + 1, #kept + 1)
        check(full:sub(1, #kept) == kept and (after == '' or after:match('[%s,;:]')), 'cut at a word (' .. w .. ')', f .. ' | ' .. full)
      end
    end
  end
  vim.cmd('buffer ' .. buf)

  -- 7d. :help perf-doctor: the committed tags are what :helptags makes, every tag opens.
  local doc = plugin .. '/doc'
  local tmpdoc = vim.fn.tempname()
  vim.fn.mkdir(tmpdoc, 'p')
  vim.fn.writefile(vim.fn.readfile(doc .. '/perf-doctor.txt'), tmpdoc .. '/perf-doctor.txt')
  vim.cmd('helptags ' .. vim.fn.fnameescape(tmpdoc))
  check(table.concat(vim.fn.readfile(tmpdoc .. '/tags'), '\n') == table.concat(vim.fn.readfile(doc .. '/tags'), '\n'),
    'doc/tags is what :helptags generates')
  vim.cmd('help perf-doctor')
  check(vim.fn.expand('%:t') == 'perf-doctor.txt' and vim.api.nvim_get_current_line():find('*perf-doctor*', 1, true),
    ':help perf-doctor opens the page at its tag', vim.fn.expand('%:p') .. ': ' .. vim.api.nvim_get_current_line())
  local page = table.concat(vim.fn.readfile(doc .. '/perf-doctor.txt'), '\n')
  local links = 0
  for link in page:gmatch('|([^|%s]+)|') do
    local ok_help, err_help = pcall(vim.cmd, 'help ' .. link)
    check(ok_help, ':help ' .. link, tostring(err_help))
    links = links + 1
  end
  check(page:find('*perf-doctor-keymaps*', 1, true) and links > 5, 'the page has its keymaps section and links', tostring(links))
  vim.cmd('helpclose')

  -- 8. A server that cannot be started is an error message naming the command, not a Lua error.
  local notes = {}
  local notify = vim.notify
  vim.notify = function(msg, level) table.insert(notes, { msg = msg, level = level }) end
  pd.setup({ cmd = { '/nonexistent/perf-doctor', 'lsp' } })
  local second = vim.fn.fnamemodify(script, ':h') .. '/run-copy.sh'
  vim.fn.writefile(vim.fn.readfile(script), second)
  local ok_edit, err_edit = pcall(vim.cmd, 'edit ' .. vim.fn.fnameescape(second))
  vim.notify = notify
  local text_notes = {}
  for _, n in ipairs(notes) do table.insert(text_notes, n.msg) end
  check(ok_edit, 'opening a script with a broken cmd raises no error', tostring(err_edit))
  local ours = 0
  for _, n in ipairs(notes) do
    if n.msg:find('perf-doctor: cannot start "/nonexistent/perf-doctor lsp"', 1, true) and n.level == vim.log.levels.ERROR then
      ours = ours + 1
    end
  end
  -- Once, although setup() re-attaches the two open scripts and a third one is opened.
  check(ours == 1, 'one error message names the command', table.concat(text_notes, ' | '))
end

local ok, err = xpcall(run, debug.traceback)
if not ok and not failed then
  out('FAIL - error: ' .. tostring(err))
end
for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
  if vim.fn.has('nvim-0.11') == 1 then c:stop() else c.stop() end
end
vim.wait(3000, function() return #(vim.lsp.get_clients or vim.lsp.get_active_clients)() == 0 end, 20)
if ok then
  out('all checks passed')
  vim.cmd('qall!')
else
  vim.cmd('cquit 1')
end
