// What a CommonJS project does: require() the package and every subpath it exports, by name. The
// build is ESM without top-level await, so Node 22+ loads it through the `default` condition.
// Run by scripts/test-runtimes.mjs (against the packed package) and test/packaging/packed-package.test.ts.
const { name, exports: exportMap } = require('reliability-gate/package.json')

const loaded = []
for (const [subpath, target] of Object.entries(exportMap)) {
  if (typeof target === 'string') continue
  const specifier = subpath === '.' ? name : `${name}/${subpath.slice(2)}`
  const entry = require(specifier)
  const names = Object.keys(entry)
  if (names.length === 0) throw new Error(`require('${specifier}') returned no exports`)
  loaded.push(`${specifier} (${names.length})`)
}
if (typeof require(name).createGate !== 'function') throw new Error(`require('${name}').createGate is not a function`)
console.log(`node ${process.versions.node}: require() of ${loaded.length} entry points: ${loaded.join(', ')}`)
