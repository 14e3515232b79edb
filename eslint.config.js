// ESLint: `npm run lint` (CI runs it before the tests); `npm run lint:fix` makes the fixes it can.
// The formatting rules follow the code as written: 2-space indent, single quotes, semicolons, trailing commas on
// multi-line lists. typescript-eslint runs without type information: its type-aware rules would build the whole
// program again, which `npm run typecheck` already does.
// The layout rules live here where a linter can say them: no line over 120 characters, no file over 300 lines.
// The import rules (the folders of src/ form a DAG, no file-level circle, only src/store/ asks which database it
// runs on) stay in test/webhooks/layout.test.ts: eslint-plugin-import's no-cycle resolves every import of every
// file again, which costs more than the rest of the lint, and the test already walks the imports once.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'web/dist/', 'node_modules/', 'test-results/', 'bench/results/', 'integrations/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@stylistic': stylistic },
    rules: {
      // Undefined names are TypeScript's to find (`npm run typecheck`, with checkJs for bin/ and .ci/).
      'no-undef': 'off',
      // `_name` is a value left out on purpose (a destructured key dropped from a copy, an unused parameter).
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true,
      }],
      'max-lines': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
      '@stylistic/max-len': ['error', { code: 120, tabWidth: 2 }],
      // Chained conditionals are written flat, one `? :` branch a line, which the indent rule cannot follow.
      '@stylistic/indent': ['error', 2, { SwitchCase: 1, ignoredNodes: ['ConditionalExpression'] }],
      '@stylistic/quotes': ['error', 'single', { avoidEscape: true, allowTemplateLiterals: 'always' }],
      '@stylistic/semi': ['error', 'always'],
      '@stylistic/comma-dangle': ['error', 'always-multiline'],
      // PHP and SQL written by tests keep their tabs inside template literals.
      '@stylistic/no-tabs': ['error', { allowIndentationTabs: true }],
      '@stylistic/no-trailing-spaces': 'error',
      '@stylistic/eol-last': 'error',
      '@stylistic/no-multiple-empty-lines': ['error', { max: 1, maxEOF: 0, maxBOF: 0 }],
      '@stylistic/object-curly-spacing': ['error', 'always'],
      '@stylistic/array-bracket-spacing': ['error', 'never'],
      '@stylistic/comma-spacing': 'error',
      '@stylistic/keyword-spacing': 'error',
      '@stylistic/space-before-blocks': 'error',
      '@stylistic/space-infix-ops': 'error',
      '@stylistic/arrow-spacing': 'error',
      '@stylistic/brace-style': ['error', '1tbs', { allowSingleLine: true }],
      // A type literal whose `}` closes on its last member's line counts as written on one line.
      '@stylistic/member-delimiter-style': ['error', { multilineDetection: 'last-member' }],
    },
  },
  {
    files: ['test/**'],
    rules: {
      // A test whose title wraps keeps its body indented from `it(`, not from the wrapped arguments
      // (`it('…',\n    async () => {\n    body\n  });`): no setting of the indent rule accepts that.
      '@stylistic/indent': 'off',
    },
  },
  {
    files: ['test/**', 'bench/**', 'src/store/migrations/**'],
    rules: {
      // Tests and benchmarks walk JSON answers and fixtures whose shape the assertion itself checks; a migration
      // takes Kysely<any>, as Kysely advises, because it must not follow today's schema (migrations are frozen).
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['web/src/**'],
    // The plugin's own types do not match ESLint's Plugin type yet; ESLint checks it when it loads.
    plugins: { 'react-hooks': /** @type {import('eslint').ESLint.Plugin} */ (reactHooks) },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // Each test builds on the state the one before left; to be split by topic with a shared world
    // (test/webhooks/layout.test.ts's TOO_LONG_FOR_NOW names it too).
    files: ['test/console/console.e2e.test.ts'],
    rules: { 'max-lines': 'off' },
  },
);
