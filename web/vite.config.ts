// Builds the management screen into web/dist, served by Furrow under /manage/.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/manage/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // One small app: no inline data: URLs for assets, so the page's CSP stays strict.
    assetsInlineLimit: 0,
  },
  server: {
    // `npm run dev:web` proxies the API to a local `furrow serve` on port 3000.
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
