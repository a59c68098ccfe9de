import type { ComponentChildren } from 'preact';

/** A page section with an h2 title and an optional lead sentence. */
export function Section({
  id,
  title,
  lead,
  children,
  className,
}: {
  id?: string;
  title: string;
  lead?: string;
  children: ComponentChildren;
  className?: string;
}) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-heading`;
  return (
    <section id={id} aria-labelledby={headingId} className={`scroll-mt-24 ${className ?? ''}`}>
      <h2 id={headingId} className="text-2xl font-bold tracking-tight text-white">
        {title}
      </h2>
      {lead && <p className="mt-1 text-slate-400">{lead}</p>}
      <div className="mt-5">{children}</div>
    </section>
  );
}
