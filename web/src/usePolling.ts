// Live updates by polling: runs `load` now and every `intervalMs` while the page is visible, so the Logs tab and
// webhook statuses follow deliveries without a reload. Works the same behind any proxy (no long-lived streams).
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api';

export const LIVE_INTERVAL_MS = 2000;

export function usePolling<T>(load: () => Promise<T>, deps: unknown[], intervalMs = LIVE_INTERVAL_MS) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  const generation = useRef(0);

  const refresh = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const value = await loadRef.current();
      if (mine === generation.current) {
        setData(value);
        setError(null);
      }
    } catch (err) {
      if (mine === generation.current) setError(err instanceof ApiError ? err.message : String(err));
    }
  }, []);

  useEffect(() => {
    setData(null);
    void refresh();
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void refresh();
    }, intervalMs);
    return () => window.clearInterval(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);

  return { data, error, refresh };
}
