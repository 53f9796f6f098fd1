/**
 * The viewer page's script (inlined, plain browser JavaScript): renders the runs embedded in the page
 * and filters them by outcome, model and kind. Everything from the trace is set as text, never as
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
  const usd = (n) => '$' + (n || 0).toFixed(n !== 0 && n < 0.01 ? 6 : 4)
  const json = (v) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2))
  const section = (title, ...content) => [$('h4', {}, title), ...content]

  function failuresView(failures) {
    return failures.flatMap((f) => section('validation issues · ' + f.stage,
      f.issues.length === 0
        ? $('pre', {}, f.message)
        : $('ul', { class: 'issues' }, ...f.issues.map((i) => $('li', {}, $('code', { 'data-testid': 'issue-path' }, i.path === '' ? '(root)' : i.path), ': ', i.message)))))
  }

  function attemptView(a) {
    const failed = a.errorKind !== 'ok' && a.errorKind !== 'pending'
    const d = a.decision
    const decided = d === undefined ? '' : d.matched ? d.decision + ' by rule ' + (d.label || d.kind) : d.decision + ' (no rule matched: default for ' + d.kind + ')'
    const summary = $('summary', {},
      $('span', { class: 'badge ' + (failed ? 'failed' : 'ok') }, failed ? a.errorKind : 'valid'),
      (a.turn !== undefined ? 'turn ' + a.turn + ' · ' : '') + 'attempt ' + a.attempt + ' → ' + a.provider + (a.model ? ' (' + a.model + ')' : ''),
      $('span', { class: 'muted' }, '  ' + [decided, a.inputTokens + ' in / ' + a.outputTokens + ' out tokens', usd(a.costUsd), a.latencyMs === undefined ? '' : Math.round(a.latencyMs) + ' ms'].filter(Boolean).join(' · ')))
    const body = $('div', { class: 'body' })
    if (a.rawOutput !== undefined) body.append(...section('raw output', $('pre', { 'data-testid': 'raw-output' }, a.rawOutput === '' ? '(empty)' : a.rawOutput)))
    if (a.toolCalls.length > 0) body.append(...section('tool calls', $('pre', {}, a.toolCalls.map((c) => c.name + ' ' + json(c.args)).join('\n'))))
    body.append(...failuresView(a.failures))
    if (a.repairs.length > 0) body.append(...section('repaired', $('div', {}, a.repairs.join(', '))))
    if (d !== undefined) body.append(...section('decision', $('div', { 'data-testid': 'decision' }, decided)))
    if (a.failover) body.append(...section('failover', $('div', {}, a.failover)))
    if (a.tail && a.tail.length > 0) {
      const tail = $('div', { class: 'tail', 'data-testid': 'tail' }, $('span', { class: 'badge ephemeral' }, 'ephemeral · never persisted'), $('span', { class: 'muted' }, 'sent after the base request to attempt ' + (a.attempt + 1)))
      for (const m of a.tail) tail.append($('div', { class: 'role' }, m.role), $('pre', {}, m.content))
      body.append(...section('ephemeral tail', tail))
    }
    return $('details', { class: 'attempt ' + (failed ? 'failed' : 'ok'), 'data-testid': 'attempt', 'data-error-kind': a.errorKind }, summary, body)
  }

  function toolView(t) {
    const ok = t.status === 'ok'
    const summary = $('summary', {}, $('span', { class: 'badge ' + (ok ? 'ok' : 'failed') }, t.status || 'pending'),
      (t.turn !== undefined ? 'turn ' + t.turn + ' · ' : '') + 'execute_tool ' + t.tool, $('span', { class: 'muted' }, '  ' + (t.outcome || '') + (t.retryCount ? ' after ' + t.retryCount + ' argument retr' + (t.retryCount === 1 ? 'y' : 'ies') : '')))
    const body = $('div', { class: 'body' }, ...section('arguments', $('pre', {}, json(t.args))), ...failuresView(t.failures))
    if (t.error) body.append(...section('error sent to the model', $('pre', {}, t.error)))
    return $('details', { class: 'tool', 'data-testid': 'tool' }, summary, body)
  }

  function runView(r) {
    const attempts = r.timeline.filter((i) => i.item === 'attempt').length
    const cls = r.outcome === 'ok' ? 'ok' : r.outcome === 'fail-fast' ? 'failed' : 'unfinished'
    const summary = $('summary', {}, $('span', { class: 'badge ' + cls }, r.outcome === 'fail-fast' ? 'fail-fast · ' + r.failKind : r.outcome),
      $('strong', {}, (r.kind === 'agent' ? 'agent ' + (r.name || '') : 'gate run') + ' '), $('code', {}, r.runId),
      $('span', { class: 'muted' }, '  ' + [r.models.join(', '), attempts + ' attempt' + (attempts === 1 ? '' : 's'), r.inputTokens + ' in / ' + r.outputTokens + ' out tokens', usd(r.costUsd)].filter(Boolean).join(' · ')))
    const body = $('div', { class: 'body' })
    if (r.metadata) body.append(...section('metadata', $('pre', {}, json(r.metadata))))
    if (r.reason) body.append(...section('fail-fast reason', $('pre', {}, r.reason)))
    for (const item of r.timeline) body.append(item.item === 'attempt' ? attemptView(item) : item.item === 'tool' ? toolView(item) : $('div', { class: 'note' }, item.text))
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
  for (const select of Object.values(filters)) select.addEventListener('change', apply)
  apply()
})()
`
