import type { ComponentChildren } from 'preact';

/** A link that opens in a new tab without giving the opened page access to this one. */
export function ExternalLink({
  href,
  className,
  children,
  testId,
}: {
  href: string;
  className?: string;
  children: ComponentChildren;
  testId?: string;
}) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer" className={className} data-testid={testId}>
      {children}
    </a>
  );
}
