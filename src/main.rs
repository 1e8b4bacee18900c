//! Entry point: parse the command line, hand it to `app`, exit with its code.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

/// The static (musl) build's allocator. musl's own malloc gives memory back
/// eagerly: a dry-run took a third more page faults and a tenth more CPU than
/// with glibc's. dlmalloc (the allocator Rust's WebAssembly targets use, in Rust)
/// behind one spin lock costs less than either. Other builds keep the
/// system allocator.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: musl_alloc::Locked = musl_alloc::Locked::new();

#[cfg(target_env = "musl")]
mod musl_alloc {
    use std::alloc::{GlobalAlloc, Layout};
    use std::cell::UnsafeCell;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// One dlmalloc heap for the whole process, behind a spin lock: the
    /// critical sections are a few hundred instructions, and cf-runner's
    /// threads rarely allocate at once. dlmalloc's own global wrapper takes
    /// musl's `pthread_mutex`, which cost a dry-run 8% of its instructions.
    pub struct Locked {
        busy: AtomicBool,
        heap: UnsafeCell<dlmalloc::Dlmalloc>,
    }

    // SAFETY: `heap` is only reached between `lock` and `unlock`, which
    // give one thread at a time access to it.
    unsafe impl Sync for Locked {}

    impl Locked {
        pub const fn new() -> Self {
            Locked {
                busy: AtomicBool::new(false),
                heap: UnsafeCell::new(dlmalloc::Dlmalloc::new()),
            }
        }

        /// Runs `f` on the heap with the lock held.
        #[inline]
        fn with<T>(&self, f: impl FnOnce(&mut dlmalloc::Dlmalloc) -> T) -> T {
            let mut spins = 0u32;
            while self
                .busy
                .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    // The holder may have been preempted: let it run.
                    std::thread::yield_now();
                }
            }
            // SAFETY: the lock is held, so no other thread is in `heap`.
            let out = f(unsafe { &mut *self.heap.get() });
            self.busy.store(false, Ordering::Release);
            out
        }
    }

    // SAFETY: every call forwards to dlmalloc with the layout the caller
    // gave, under the lock; dlmalloc upholds `GlobalAlloc`'s contract.
    unsafe impl GlobalAlloc for Locked {
        #[inline]
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            self.with(|heap| unsafe { heap.malloc(layout.size(), layout.align()) })
        }

        #[inline]
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            self.with(|heap| unsafe { heap.calloc(layout.size(), layout.align()) })
        }

        #[inline]
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            self.with(|heap| unsafe { heap.free(ptr, layout.size(), layout.align()) })
        }

        #[inline]
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            self.with(|heap| unsafe { heap.realloc(ptr, layout.size(), layout.align(), new_size) })
        }
    }
}

/// The file name kubectl runs cf-runner by as its plugin (`kubectl
/// cf-runner`: kubectl turns the dash into an underscore), the name krew
/// links it under.
const KUBECTL_PLUGIN: &str = "kubectl-cf_runner";

/// The command as the user typed it, for usage lines and help: `kubectl
/// cf-runner` when run as the kubectl plugin, else the binary's own name.
fn command_name(argv0: Option<std::ffi::OsString>) -> Option<&'static str> {
    let path = std::path::PathBuf::from(argv0?);
    let stem = path.file_stem()?.to_str()?;
    (stem == KUBECTL_PLUGIN).then_some("kubectl cf-runner")
}

fn main() -> ExitCode {
    let mut command = cf_runner::cli::Cli::command();
    if let Some(name) = command_name(std::env::args_os().next()) {
        command = command.bin_name(name);
    }
    let parsed = command
        .try_get_matches()
        .and_then(|matches| cf_runner::cli::Cli::from_arg_matches(&matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(mut e) => {
            cf_runner::cli::suggest_kubectl_habits(&mut e);
            // clap prints help/version to stdout (exit 0) and usage errors to
            // stderr; usage errors are bad input, exit code 2.
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    cf_runner::app::commands::run(cli)
}
