import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/preact';
import { useAfterFirstPaint } from './firstPaint';

function Probe() {
  return <p>{useAfterFirstPaint() ? 'later' : 'first'}</p>;
}

describe('useAfterFirstPaint', () => {
  afterEach(cleanup);

  it('is false for the first render and true after the frame', async () => {
    render(<Probe />);
    expect(screen.getByText('first')).toBeTruthy();
    expect(await screen.findByText('later')).toBeTruthy();
  });
});
