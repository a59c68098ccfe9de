import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { LogIn, UserPlus } from 'lucide-react';
import { Button } from '../ui/Button';
import { FormCard } from '../ui/FormCard';
import { afterSignIn, CURRENT_USER_KEY, hasErrors, loginFailureText, registerFailureText, serverFieldErrors, type FieldErrors, useLogin, useRegister, validateLogin, validateRegister } from '../../lib/auth';
import { needsSecondFactor, type SecondFactorNeeded } from '../../lib/secondFactor';
import { toast } from '../../lib/toast';
import { FormField } from './FormField';
import { SecondFactorStep } from './SecondFactorStep';

export type AuthMode = 'signin' | 'register';

/** The one card of /login: Sign in (default) or Create Account, toggled by a link. */
export function AuthForm({ siteName, initialMode = 'signin' }: { siteName?: string; initialMode?: AuthMode }) {
  const [mode, setMode] = useState<AuthMode>(initialMode);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  // The password was right and the account has a second factor: the card asks for it.
  const [secondStep, setSecondStep] = useState<SecondFactorNeeded | null>(null);
  const login = useLogin();
  const register = useRegister();
  const qc = useQueryClient();
  const [, navigate] = useLocation();

  const isRegister = mode === 'register';
  const pending = isRegister ? register.isPending : login.isPending;
  const clientErrors = submitted
    ? isRegister
      ? validateRegister({ username, password, confirmPassword })
      : validateLogin({ username, password })
    : {};
  const errors: FieldErrors = { ...serverErrors, ...clientErrors };

  function edit(field: keyof FieldErrors, set: (v: string) => void) {
    return (v: string) => {
      set(v);
      if (serverErrors[field]) setServerErrors(({ [field]: _, ...rest }) => rest);
    };
  }

  function switchMode(next: AuthMode) {
    setMode(next);
    setSubmitted(false);
    setServerErrors({});
    setPassword('');
    setConfirmPassword('');
  }

  function onSubmit(e: Event) {
    e.preventDefault();
    if (pending) return;
    setSubmitted(true);
    setServerErrors({});
    const values = { username, password };
    if (isRegister) {
      if (hasErrors(validateRegister({ ...values, confirmPassword }))) return;
      register.mutate(values, {
        onSuccess: () => {
          toast({ title: 'Account created!', description: 'You can now log in with your credentials.' });
          switchMode('signin');
        },
        onError: (err) => {
          setServerErrors(serverFieldErrors(err));
          toast({ title: 'Registration failed', description: registerFailureText(err), variant: 'destructive' });
        },
      });
    } else {
      if (hasErrors(validateLogin(values))) return;
      login.mutate(values, {
        onSuccess: (data) => {
          if (needsSecondFactor(data)) {
            setPassword('');
            setSecondStep(data);
            return;
          }
          if (data && typeof data === 'object' && data.user) qc.setQueryData(CURRENT_USER_KEY, data.user);
          signedIn();
        },
        onError: (err) => {
          setServerErrors(serverFieldErrors(err));
          toast({ title: 'Login failed', description: loginFailureText(err), variant: 'destructive' });
        },
      });
    }
  }

  function signedIn() {
    toast({ title: 'Welcome back!', description: 'You have successfully logged in.' });
    qc.invalidateQueries({ queryKey: CURRENT_USER_KEY });
    navigate(afterSignIn(new URLSearchParams(window.location.search).get('next')));
  }

  if (secondStep) {
    return (
      <SecondFactorStep
        needed={secondStep}
        username={username.trim()}
        onSignedIn={signedIn}
        onStartOver={() => {
          setSecondStep(null);
          setSubmitted(false);
        }}
      />
    );
  }

  return (
    <FormCard
      icon={isRegister ? UserPlus : LogIn}
      title={isRegister ? 'Create Account' : 'Sign in'}
      subtitle={
        isRegister
          ? siteName
            ? `Welcome to the ${siteName} community! Create your account to get started.`
            : 'Welcome to the community! Create your account to get started.'
          : 'Sign in to access your admin dashboard'
      }
    >

      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4" aria-label={isRegister ? 'Create Account' : 'Sign in'}>
        <FormField
          label="Username"
          name="username"
          value={username}
          onInput={edit('username', setUsername)}
          autoComplete="username"
          error={errors.username}
          disabled={pending}
        />
        <FormField
          label="Password"
          name="password"
          type="password"
          value={password}
          onInput={edit('password', setPassword)}
          autoComplete={isRegister ? 'new-password' : 'current-password'}
          error={errors.password}
          disabled={pending}
        />
        {isRegister && (
          <FormField
            label="Confirm Password"
            name="confirmPassword"
            type="password"
            value={confirmPassword}
            onInput={edit('confirmPassword', setConfirmPassword)}
            autoComplete="new-password"
            error={errors.confirmPassword}
            disabled={pending}
          />
        )}
        <Button type="submit" size="lg" disabled={pending} className="mt-2 w-full">
          {isRegister ? (pending ? 'Creating account...' : 'Create Account') : pending ? 'Signing in...' : 'Sign in'}
        </Button>
      </form>

      <p className="mt-6 text-center text-sm">
        <button
          type="button"
          onClick={() => switchMode(isRegister ? 'signin' : 'register')}
          className="cursor-pointer text-violet-300 underline-offset-4 hover:text-violet-200 hover:underline"
        >
          {isRegister ? 'Already have an account? Sign in' : "Don't have an account? Sign up"}
        </button>
      </p>
    </FormCard>
  );
}
