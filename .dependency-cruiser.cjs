/**
 * The layering of src/ (CONTRIBUTING.md, "Layering rules"): dependencies point inward, domain ← engine
 * ← http, cli and the composition root; adapters (storage, infra, providers, tools, auth) implement
 * the engine's ports and import only domain/ and engine/ports; http/ reaches storage only through
 * those ports. No import cycle in src/ or packages/. `npm run lint` checks it; CI runs lint.
 */
const ADAPTERS = '(storage|infra|providers|tools|auth)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles, type-only imports included (the service and the client package).',
      from: { path: '^(src|packages)/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'domain/ holds types and rules only: it imports nothing else of src/.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'engine-through-ports',
      severity: 'error',
      comment: 'engine/ imports only domain/ and itself; adapters come in through engine/ports.ts.',
      from: { path: '^src/engine/' },
      to: { path: '^src/', pathNot: '^src/(domain|engine)/' },
    },
    {
      name: 'adapters-see-only-ports',
      severity: 'error',
      comment: 'An adapter implements ports: of the engine it imports engine/ports.ts (and ports/) only.',
      from: { path: `^src/${ADAPTERS}/` },
      to: { path: '^src/engine/', pathNot: '^src/engine/ports(\\.ts|/)' },
    },
    {
      name: 'adapters-never-import-each-other',
      severity: 'error',
      comment: 'Adapters are wired together by the composition root, never by importing one another.',
      from: { path: `^src/${ADAPTERS}/` },
      to: { path: `^src/${ADAPTERS}/`, pathNot: '^src/$1/' },
    },
    {
      name: 'http-through-ports',
      severity: 'error',
      comment:
        "http/ reaches storage only through the engine's ports; the composition root hands it the repositories.",
      from: { path: '^src/http/' },
      to: { path: '^src/storage/' },
    },
    {
      name: 'nothing-depends-on-the-edges',
      severity: 'error',
      comment: 'http/, cli/ and the composition root are the outermost layer: only they import them.',
      from: { path: '^src/(domain|engine|storage|infra|providers|tools|auth)/' },
      to: { path: '^src/(http/|cli/|main\\.ts|[a-z-]+-services\\.ts|transport\\.ts|config\\.ts)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
