// The "Live" mark of a list that polls by itself (the Logs and Events filter bars).
export function LiveIndicator() {
  return (
    <span className="live-indicator" title="This list updates automatically">
      <span className="live-dot" aria-hidden="true" /> Live
    </span>
  );
}
