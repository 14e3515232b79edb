// Builds the admin console into web/dist, served by Waypost at /admin/ (src/admin/console.ts). No CDN assets.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/admin/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022' },
  server: {
    // `npx vite --config web/vite.config.ts` for console work: the API comes from a running Waypost.
    proxy: { '/admin/api': process.env.WAYPOST_URL ?? 'http://127.0.0.1:8080' },
  },
});
