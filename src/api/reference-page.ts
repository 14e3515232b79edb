// The rendered API reference at {root}/docs: Waypost's own page (its bar, a viewport, a main landmark) around
// Swagger UI's bundle from the swagger-ui-dist package (no CDN). The bundle is copied and precompressed at build
// time (src/build/precompress.ts) and served with @fastify/static's preCompressed; without a build it is served
// from the package, uncompressed. Swagger UI is kept (rather than another renderer) because configuration and
// CSS make it pass axe-core: deep links off (they were links inside buttons), contrast and target sizes in CSS.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { REFERENCE_ASSETS, REFERENCE_DIST, swaggerUiDir } from '../build/precompress.js';
import { compress, negotiate, type Encoded } from './compression.js';

// The console's mark (web/index.html), so the reference reads as Waypost's.
const MARK = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
  + '<rect width="32" height="32" rx="7" fill="#0b5cff"/>'
  + '<path d="M8 10l4 12 4-8 4 8 4-12" stroke="white" stroke-width="2.6" fill="none" stroke-linecap="round" '
  + 'stroke-linejoin="round"/></svg>';

// Swagger UI's own colours are below 4.5:1 on white (method names, links, the version badge): darker shades of
// the same hues. Targets of at least 24 px (WCAG 2.2 target-size).
const THEME_CSS = `
html { box-sizing: border-box; overflow-y: scroll; }
*, *::before, *::after { box-sizing: inherit; }
body { margin: 0; background: #fafafa; }
.waypost-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 10px; padding: 12px 20px;
  background: #0f172a; color: #fff; font: 600 16px/1.2 system-ui, sans-serif; }
.waypost-bar img { width: 28px; height: 28px; }
.waypost-bar a { color: #e2e8f0; font-weight: 500; font-size: 14px; margin-left: auto; text-decoration: underline;
  display: inline-flex; align-items: center; min-height: 24px; }
.swagger-ui .info .title small.version-stamp { background: #0b5cff; }
.swagger-ui .info .title small pre { color: #fff; }
.swagger-ui .info .title small:not(.version-stamp) { background: #4b5563; }
.swagger-ui .info hgroup.main > a { display: none; }
.swagger-ui a, .swagger-ui .info a, .swagger-ui .info__license__url .link { color: #1d4ed8; }
.swagger-ui .info a, .swagger-ui .renderedMarkdown a { display: inline-block; min-height: 24px; }
.swagger-ui .opblock .opblock-summary-method { color: #fff; }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d4ed8; }
.swagger-ui .opblock.opblock-head .opblock-summary-method { background: #6d28d9; }
.swagger-ui .opblock.opblock-post .opblock-summary-method { background: #047857; }
.swagger-ui .opblock.opblock-put .opblock-summary-method { background: #b45309; }
.swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #0f766e; }
.swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #b91c1c; }
.swagger-ui .opblock.opblock-options .opblock-summary-method { background: #1e40af; }
.swagger-ui .btn.authorize, .swagger-ui .btn.authorize span { color: #047857; border-color: #047857; }
.swagger-ui .btn.authorize svg { fill: #047857; }
.swagger-ui .response-col_status, .swagger-ui .parameter__in, .swagger-ui .prop-format,
.swagger-ui .parameter__type, .swagger-ui .response-col_links, .swagger-ui .opblock-summary-operation-id,
.swagger-ui .model-title, .swagger-ui .model .property.primitive, .swagger-ui .prop-type { color: #374151; }
.swagger-ui .parameter__name.required span, .swagger-ui .parameter__name.required::after { color: #b91c1c; }
.swagger-ui .opblock-tag small, .swagger-ui .opblock .opblock-summary-description { color: #1f2937; }
.swagger-ui .tab li button.tablinks { min-height: 24px; }
.swagger-ui .btn.try-out__btn.cancel { color: #b91c1c; border-color: #b91c1c; }
.swagger-ui .btn.execute { background: #1d4ed8; border-color: #1d4ed8; color: #fff; }
.swagger-ui .json-schema-2020-12-expand-deep-button { color: #374151; }
.swagger-ui .model-box-control, .swagger-ui .models-control, .swagger-ui .opblock-summary-control,
.swagger-ui .expand-operation, .swagger-ui .copy-to-clipboard button { min-height: 24px; min-width: 24px; }
/* The path's copy button was 0 px wide until hovered: always shown, 24 px, as a finger needs it. */
.swagger-ui .opblock .opblock-summary .view-line-link.copy-to-clipboard { width: 24px; min-width: 24px; height: 24px;
  margin: 0 4px; top: 0; }
.swagger-ui .opblock .opblock-summary .view-line-link.copy-to-clipboard button { width: 24px; height: 24px; }
`;

// Runs from a file (the page's CSP allows scripts from 'self' only). Swagger UI leaves a few things unnamed that
// CSS cannot name: its selects, the scrollable examples, the sections outside its <main>, and headings one level
// too deep after the title (h1, then h3). React keeps attributes it does not manage, so they are added as the
// elements appear.
const INIT_JS = (documentUrl: string) => `(function () {
  function label(root) {
    root.querySelectorAll('select:not([aria-label])').forEach(function (s) {
      var row = s.closest('tr[data-param-name]');
      s.setAttribute('aria-label', s.id === 'servers' ? 'Server' : row ? row.getAttribute('data-param-name')
        : s.closest('.content-type-wrapper, .body-param-content-type') ? 'Media type' : 'Choice');
    });
    root.querySelectorAll('.microlight:not([tabindex]), .highlight-code > pre:not([tabindex])').forEach(function (p) {
      p.setAttribute('tabindex', '0');
      p.setAttribute('aria-label', 'Example');
    });
    root.querySelectorAll('h3.opblock-tag:not([aria-level]), .models > h4:not([aria-level])').forEach(function (h) {
      h.setAttribute('aria-level', '2');
    });
    root.querySelectorAll('h4:not([aria-level])').forEach(function (h) { h.setAttribute('aria-level', '3'); });
    root.querySelectorAll('h5:not([aria-level])').forEach(function (h) { h.setAttribute('aria-level', '4'); });
    // Its operations are in a <main>; the title and the servers become named regions beside it.
    [['.information-container', 'About this API'], ['.scheme-container', 'Servers and credentials']]
      .forEach(function (r) {
        var el = root.querySelector(r[0] + ':not([aria-label])');
        if (el) { el.setAttribute('role', 'region'); el.setAttribute('aria-label', r[1]); }
      });
  }
  window.addEventListener('load', function () {
    var root = document.getElementById('swagger-ui');
    new MutationObserver(function () { label(root); }).observe(root, { childList: true, subtree: true });
    window.ui = SwaggerUIBundle({
      url: ${JSON.stringify(documentUrl)}, dom_id: '#swagger-ui', layout: 'BaseLayout',
      docExpansion: 'list', deepLinking: false, validatorUrl: null, persistAuthorization: false,
      presets: [SwaggerUIBundle.presets.apis],
    });
  });
})();`;

const page = (root: string, title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" type="image/svg+xml" href="${root}/docs/static/waypost.svg" sizes="any">
<link rel="stylesheet" href="${root}/docs/static/swagger-ui.css">
<link rel="stylesheet" href="${root}/docs/static/waypost.css">
</head>
<body>
<header class="waypost-bar"><img src="${root}/docs/static/waypost.svg" alt=""><span>Waypost · REST API reference</span>
<a href="${root}/openapi.json">openapi.json</a></header>
<div id="swagger-ui"></div>
<script src="${root}/docs/static/swagger-ui-bundle.js"></script>
<script src="${root}/docs/static/waypost.js"></script>
</body>
</html>
`;

// Everything from 'self': no inline script or style. Swagger UI sets style attributes from script (CSSOM, which
// CSP allows), and shows images as data: URLs.
const CSP = "default-src 'self'; base-uri 'self'; font-src 'self' data:; frame-ancestors 'self'; img-src 'self' data:; "
  + "object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self'; form-action 'self'";

const assetsDir = () => (existsSync(join(REFERENCE_DIST, REFERENCE_ASSETS[0])) ? REFERENCE_DIST : swaggerUiDir());

/** Registers {root}/docs (inside the API's scope); `document` is what {root}/docs/json answers. */
export async function registerReferencePage(
  api: FastifyInstance, root: string, title: string, document: () => unknown,
): Promise<void> {
  const html = page(root, title);
  const own: Record<string, [string, string]> = {
    'waypost.css': ['text/css; charset=utf-8', THEME_CSS],
    'waypost.js': ['application/javascript; charset=utf-8', INIT_JS(`${root}/docs/json`)],
    'waypost.svg': ['image/svg+xml', MARK],
  };
  const hide = { schema: { hide: true } };
  const sendPage = (_req: unknown, reply: import('fastify').FastifyReply) => reply.type('text/html; charset=utf-8')
    .header('content-security-policy', CSP).header('cache-control', 'no-cache').send(html);
  api.get('/docs', hide, sendPage);
  api.get('/docs/', hide, sendPage);
  // The document (120 kB) does not change while the process runs: serialised and compressed once.
  let json: Promise<Encoded & { body: string }> | undefined;
  api.get('/docs/json', hide, async (req, reply) => {
    const doc = await (json ??= (async () => {
      const body = JSON.stringify(document());
      return { body, ...(await compress(body)) };
    })());
    const encoding = negotiate(req.headers['accept-encoding']);
    reply.type('application/json; charset=utf-8').header('vary', 'Accept-Encoding').header('cache-control', 'no-cache');
    const bytes = encoding && doc[encoding];
    return bytes ? reply.header('content-encoding', encoding).send(bytes) : reply.send(doc.body);
  });
  for (const [name, [type, body]] of Object.entries(own)) {
    api.get(`/docs/static/${name}`, hide, async (_req, reply) => reply.type(type).header('cache-control', 'no-cache')
      .send(body));
  }
  const dir = assetsDir();
  await api.register(fastifyStatic, {
    root: dir, prefix: '/docs/static/', decorateReply: false, preCompressed: true, schemaHide: true,
    allowedPath: (path) => REFERENCE_ASSETS.some((a) => path === `/${a}`),
    // One URL, several encodings: caches must key on Accept-Encoding.
    setHeaders: (res) => res.setHeader('vary', 'Accept-Encoding'),
  });
}
