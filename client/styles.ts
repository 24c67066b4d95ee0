/** Shared CSS for the page's shadow roots: host design tokens only (they inherit from <body> in light and dark). */
import { css } from 'lit'

/** Base rules every component adopts. */
export const baseStyles = css`
  /*
   * State colours for text: the host's state hues are bright (green, amber, red on white read at 2.2 to 4.5:1), so
   * text mixes each with the theme's primary label, which darkens it on the light ground and lightens it on the dark
   * one, keeping 4.5:1 in both. Strokes and fills keep the bright hue.
   */
  :host {
    --fm-success-text: color-mix(in srgb, var(--dsw-alias-state-success-primary, #22c55e) 50%, var(--dsw-alias-label-primary, #0f1115));
    --fm-warn-text: color-mix(in srgb, var(--dsw-alias-state-warn-primary, #f59e0b) 50%, var(--dsw-alias-label-primary, #0f1115));
    --fm-error-text: color-mix(in srgb, var(--dsw-alias-state-error-primary, #ec1313) 70%, var(--dsw-alias-label-primary, #0f1115));
    --fm-business-text: color-mix(in srgb, var(--dsw-alias-state-business-primary, #4d6bfe) 70%, var(--dsw-alias-label-primary, #0f1115));
    color: var(--dsw-alias-label-primary);
    font-family: var(--dsw-font-family, system-ui, sans-serif);
    font-size: 14px;
    line-height: 20px;
    box-sizing: border-box;
  }
  *, *::before, *::after { box-sizing: inherit; }
  button {
    font: inherit;
    color: inherit;
    background: transparent;
    border: 1px solid var(--dsw-alias-border-l2);
    border-radius: 8px;
    padding: 4px 10px;
    cursor: pointer;
  }
  button:hover:not(:disabled) { background: var(--dsw-alias-interactive-bg-hover); }
  button:active:not(:disabled) { background: var(--dsw-alias-interactive-bg-active); }
  button:disabled { opacity: 0.5; cursor: default; }
  button.quiet { border-color: transparent; }
  button.primary { background: var(--dsw-alias-brand-primary); color: var(--dsw-alias-label-primary-inverted); border-color: transparent; }
  /* Under the mouse a primary button keeps its fill and label (the plain hover fill would blank it); a ring marks it. */
  button.primary:hover:not(:disabled), button.primary:active:not(:disabled) {
    background: var(--dsw-alias-brand-primary);
    box-shadow: 0 0 0 2px var(--dsw-alias-bg-base), 0 0 0 4px var(--dsw-alias-brand-primary);
  }
  button.danger { color: var(--fm-error-text); }
  :focus-visible { outline: 2px solid var(--dsw-alias-brand-primary); outline-offset: 2px; }
  input, select, textarea {
    font: inherit;
    color: inherit;
    background: var(--dsw-alias-bg-layer-1);
    border: 1px solid var(--dsw-alias-border-l2);
    border-radius: 8px;
    padding: 4px 8px;
  }
  .muted { color: var(--dsw-alias-label-secondary); }
  .caption { color: var(--dsw-alias-label-secondary); font-size: 12px; line-height: 16px; }
  .pill {
    display: inline-flex;
    align-items: center;
    gap: 2px;
    padding: 0 8px;
    border-radius: 999px;
    font-size: 12px;
    line-height: 20px;
    white-space: nowrap;
    border: 1px solid var(--dsw-alias-border-l2);
    color: var(--dsw-alias-label-secondary);
  }
  .pill.active { color: var(--fm-success-text); }
  .pill.conflict { color: var(--fm-warn-text); border-color: currentColor; }
  .pill.scheduled { color: var(--fm-business-text); }
  .empty { padding: 32px; text-align: center; color: var(--dsw-alias-label-secondary); }
  .skeleton {
    border-radius: 6px;
    background: linear-gradient(90deg, var(--dsw-alias-bg-layer-2) 0%, var(--dsw-alias-bg-layer-3) 50%, var(--dsw-alias-bg-layer-2) 100%);
    background-size: 200% 100%;
    animation: shimmer 1.2s linear infinite;
  }
  @keyframes shimmer { from { background-position: 200% 0; } to { background-position: -200% 0; } }
  @media (prefers-reduced-motion: reduce) { .skeleton { animation: none; } }
`
