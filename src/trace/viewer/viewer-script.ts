/**
 * The viewer page's script (inlined, plain browser JavaScript): renders the runs embedded in the page
 * (and the lines of the file it skipped), filters them by outcome, model and kind, expands or
 * collapses them all. Everything from the trace is set as text, never as
 * markup: model outputs are untrusted.
 */
export const VIEWER_SCRIPT = String.raw`
(() => {
  const runs = JSON.parse(document.getElementById('trace-data').textContent)
  const $ = (tag, attrs, ...children) => {
    const el = document.createElement(tag)
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined) el.setAttribute(k, String(v))
    for (const c of children) if (c !== undefined && c !== null) el.append(c instanceof Node ? c : String(c))
    return el
  }
  const dollars = (n) => '$' + (n || 0).toFixed(n !== 0 && n < 0.01 ? 6 : 4)
  // Unpriced is not free: a cost that leaves attempts out says so.
  const usd = (n, unpriced) => (unpriced ? (n ? dollars(n) + ' + unpriced' : 'unpriced') : dollars(n))
  const invalidView = (invalid) => invalid.length === 0 ? [] : section('invalid fields in the trace (read as absent)', $('ul', { class: 'invalid', 'data-testid': 'invalid' }, ...invalid.map((t) => $('li', {}, t))))
  const messagesView = (messages) => messages.flatMap((m) => [$('div', { class: 'role' }, m.role), $('pre', {}, m.content)])
  const json = (v) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2))
  const section = (title, ...content) => [$('h4', {}, title), ...content]

  function failuresView(failures) {
    return failures.flatMap((f) => section('validation issues · ' + f.stage,
      f.issues.length === 0
        ? $('pre', {}, f.message)
        : $('ul', { class: 'issues' }, ...f.issues.map((i) => $('li', {}, $('code', { 'data-testid': 'issue-path' }, i.path === '' ? '(root)' : i.path), ': ', i.message)))))
  }

  function attemptView(a) {
    const r = a.toolRetry
    // A tool-argument retry is judged by its arguments, not by the gate accepting a tool call.
    // An answer the gate accepted whose tool call was then rejected is drawn as rejected, never as valid.
    const rejected = !r && a.argsRejected !== undefined
    const failed = r ? r.verdict === 'invalid' : rejected || (a.errorKind !== 'ok' && a.errorKind !== 'pending')
    const verdict = r ? (r.verdict === 'pending' ? 'args pending' : 'args ' + r.verdict) : rejected ? 'args rejected' : failed ? a.errorKind : 'valid'
    const d = a.decision
    const decided = d === undefined ? '' : d.matched ? d.decision + ' by rule ' + (d.label || d.kind) : d.decision + ' (no rule matched: default for ' + d.kind + ')'
    const what = r ? 'argument retry ' + r.retry + ' of ' + r.tool : 'attempt ' + a.attempt
    const summary = $('summary', {},
      $('span', { class: 'badge ' + (failed ? 'failed' : 'ok') }, verdict),
      r ? $('span', { class: 'badge retry' }, 'tool-args retry') : undefined,
      a.invalid.length > 0 ? $('span', { class: 'badge failed' }, 'invalid fields') : undefined,
      (a.turn !== undefined ? 'turn ' + a.turn + ' · ' : '') + what + ' → ' + a.provider + (a.model ? ' (' + a.model + ')' : ''),
      $('span', { class: 'muted' }, '  ' + [decided, a.inputTokens + ' in / ' + a.outputTokens + ' out tokens', usd(a.costUsd, a.unpriced), a.latencyMs === undefined ? '' : Math.round(a.latencyMs) + ' ms'].filter(Boolean).join(' · ')))
    const body = $('div', { class: 'body' })
    if (a.sent && a.sent.length > 0) {
      const sent = $('div', { class: 'tail', 'data-testid': 'sent' }, $('span', { class: 'badge ephemeral' }, 'ephemeral · never persisted'), $('span', { class: 'muted' }, 'feedback sent with this attempt, after the base request'), ...messagesView(a.sent))
      body.append(...section('feedback sent', sent))
    }
    if (a.rawOutput !== undefined) body.append(...section('raw output', $('pre', { 'data-testid': 'raw-output' }, a.rawOutput === '' ? '(empty)' : a.rawOutput)))
    if (a.toolCalls.length > 0) body.append(...section('tool calls', $('pre', {}, a.toolCalls.map((c) => c.name + ' ' + json(c.args)).join('\n'))))
    body.append(...failuresView(a.failures))
    if (a.repairs.length > 0) body.append(...section('repaired', $('div', {}, a.repairs.join(', '))))
    if (d !== undefined) body.append(...section('decision', $('div', { 'data-testid': 'decision' }, decided)))
    if (a.failover) body.append(...section('failover', $('div', {}, a.failover)))
    if (a.tail && a.tail.length > 0) {
      const tail = $('div', { class: 'tail', 'data-testid': 'tail' }, $('span', { class: 'badge ephemeral' }, 'ephemeral · never persisted'), $('span', { class: 'muted' }, 'sent after the base request to attempt ' + (a.attempt + 1)))
      tail.append(...messagesView(a.tail))
      body.append(...section('ephemeral tail', tail))
    }
    body.append(...invalidView(a.invalid))
    return $('details', { class: 'attempt ' + (failed ? 'failed' : 'ok'), 'data-testid': 'attempt', 'data-error-kind': a.errorKind, 'data-tool-retry': r ? r.verdict : undefined }, summary, body)
  }

  function toolView(t) {
    const ok = t.status === 'ok'
    const summary = $('summary', {}, $('span', { class: 'badge ' + (ok ? 'ok' : 'failed') }, t.status || 'pending'), t.invalid.length > 0 ? $('span', { class: 'badge failed' }, 'invalid fields') : undefined,
      (t.turn !== undefined ? 'turn ' + t.turn + ' · ' : '') + 'execute_tool ' + t.tool, $('span', { class: 'muted' }, '  ' + (t.outcome || '') + (t.retryCount ? ' after ' + t.retryCount + ' argument retr' + (t.retryCount === 1 ? 'y' : 'ies') : '')))
    // Each rejected set of arguments is drawn as rejected with its own issues; the arguments that settled the call stand alone.
    const body = $('div', { class: 'body' }, ...section(t.rejected.length > 0 ? 'arguments (final)' : 'arguments', $('pre', { 'data-testid': 'final-args' }, json(t.args))))
    for (const [i, x] of t.rejected.entries())
      body.append(...section('rejected arguments ' + (i + 1), $('div', { class: 'rejected', 'data-testid': 'rejected-call' }, $('span', { class: 'badge failed' }, 'rejected'), $('pre', {}, json(x.args)), ...failuresView([x.failure]))))
    if (t.error) body.append(...section('error sent to the model', $('pre', {}, t.error)))
    body.append(...invalidView(t.invalid))
    return $('details', { class: 'tool', 'data-testid': 'tool' }, summary, body)
  }

  function runView(r) {
    const attempts = r.timeline.filter((i) => i.item === 'attempt').length
    const cls = r.outcome === 'ok' ? 'ok' : r.outcome === 'fail-fast' ? 'failed' : 'unfinished'
    const summary = $('summary', {}, $('span', { class: 'badge ' + cls }, r.outcome === 'fail-fast' ? 'fail-fast · ' + r.failKind : r.outcome),
      $('strong', {}, (r.kind === 'agent' ? 'agent ' + (r.name || '') : 'gate run') + ' '), $('code', {}, r.runId),
      $('span', { class: 'muted' }, '  ' + [r.models.join(', '), attempts + ' attempt' + (attempts === 1 ? '' : 's'), r.inputTokens + ' in / ' + r.outputTokens + ' out tokens', usd(r.costUsd, r.unpricedAttempts > 0)].filter(Boolean).join(' · ')))
    const body = $('div', { class: 'body' })
    if (r.metadata) body.append(...section('metadata', $('pre', {}, json(r.metadata))))
    if (r.reason) body.append(...section('fail-fast reason', $('pre', {}, r.reason)))
    for (const item of r.timeline) body.append(item.item === 'attempt' ? attemptView(item) : item.item === 'tool' ? toolView(item) : $('div', { class: 'note ' + item.type, 'data-testid': 'note' }, item.text))
    return $('details', { class: 'run', 'data-testid': 'run', 'data-run-id': r.runId, 'data-outcome': r.outcome }, summary, body)
  }

  const filters = { outcome: document.getElementById('f-outcome'), model: document.getElementById('f-model'), kind: document.getElementById('f-kind') }
  const options = (select, values) => { for (const v of [...new Set(values)].sort()) select.append($('option', { value: v }, v)) }
  options(filters.model, runs.flatMap((r) => r.models))
  options(filters.kind, runs.flatMap((r) => r.kinds))
  const list = document.getElementById('runs')
  const views = runs.map((r) => [r, runView(r)])
  function apply() {
    const o = filters.outcome.value, m = filters.model.value, k = filters.kind.value
    let shown = 0
    for (const [r, view] of views) {
      const visible = (o === '' || r.outcome === o) && (m === '' || r.models.includes(m)) && (k === '' || r.kinds.includes(k))
      view.hidden = !visible
      if (visible) shown++
    }
    document.getElementById('shown').textContent = shown + ' of ' + runs.length + ' runs'
  }
  for (const view of views) list.append(view[1])
  if (runs.length === 0) list.append($('div', { class: 'empty' }, 'This trace has no runs.'))
  const skipped = JSON.parse(document.getElementById('trace-skipped').textContent)
  if (skipped.length > 0) {
    const lines = skipped.length + ' line' + (skipped.length === 1 ? '' : 's') + ' of the file skipped'
    document.getElementById('skipped').append($('details', { class: 'skipped', 'data-testid': 'skipped' }, $('summary', {}, $('span', { class: 'badge failed' }, lines)),
      $('ul', {}, ...skipped.map((s) => $('li', { 'data-testid': 'skipped-line' }, 'line ' + s.line + ': ' + s.reason)))))
  }
  const openAll = (open) => { for (const d of document.querySelectorAll('main details')) d.open = open }
  document.getElementById('expand-all').addEventListener('click', () => openAll(true))
  document.getElementById('collapse-all').addEventListener('click', () => openAll(false))
  for (const select of Object.values(filters)) select.addEventListener('change', apply)
  apply()
})()
`
