//! The burst bucket as the providers describe it: credits drawn by I/O above the baseline rate,
//! earned back below it; while credits remain the volume runs at its burst rate, then at its
//! baseline. One bucket counts I/Os, an optional second counts bytes (Azure and st1/sc1 track
//! throughput credits separately).

/// One bucket's parameters: rates per second, capacity in I/Os (or bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketSpec {
    pub burst: f64,
    pub baseline: f64,
    pub capacity: f64,
    /// Credits an idle volume earns per second; running at `rate` below the baseline earns
    /// `refill * (1 - rate / baseline)`. gp2 earns at its baseline rate (refill = baseline).
    pub refill: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    pub spec: BucketSpec,
    /// Credits left; it starts full, as gp2's and Azure's do.
    pub balance: f64,
    bursting: bool,
}

impl Bucket {
    pub fn new(spec: BucketSpec) -> Bucket {
        Bucket {
            spec,
            balance: spec.capacity,
            bursting: spec.burst > spec.baseline,
        }
    }

    /// Accounts `used` units done over `dt` seconds.
    pub fn account(&mut self, used: f64, dt: f64) {
        if dt <= 0.0 {
            return;
        }
        let s = self.spec;
        let allowance = s.baseline * dt;
        if used > allowance {
            self.balance -= used - allowance;
        } else if s.baseline > 0.0 {
            self.balance += s.refill * dt * (1.0 - used / allowance);
        }
        self.settle();
    }

    /// Accounts `used` units over `dt` seconds of a stretch known to run above the baseline:
    /// linearly, so a tick that saw fewer than the baseline (its I/O counted in the next tick)
    /// offsets the one that saw more, rather than earning idle credits.
    pub fn spend(&mut self, used: f64, dt: f64) {
        self.balance -= used - self.spec.baseline * dt;
        self.settle();
    }

    fn settle(&mut self) {
        let s = self.spec;
        // A little debt is allowed: I/O counted per tick jitters around the baseline, and
        // clamping at zero would keep every tick's refill and drop every overdraft, leaking
        // credits (a 1,000 IOPS baseline ran at 2,000 that way).
        self.balance = self.balance.clamp(-s.baseline, s.capacity);
        // Hysteresis: a burst ends when the credits are gone and starts again only once a
        // second's worth of burst is saved, so jitter at the baseline does not flicker.
        if self.bursting && self.balance <= 0.0 {
            self.bursting = false;
        } else if !self.bursting && s.burst > s.baseline && self.balance >= self.resume_at() {
            self.bursting = true;
        }
    }

    fn resume_at(&self) -> f64 {
        let s = self.spec;
        ((s.burst - s.baseline) * 1.0).min(s.capacity)
    }

    /// The rate to allow now: the burst rate while credits last, else the baseline. Two
    /// settings only, so the kernel's throttle is rewritten twice per burst, not every tick
    /// (each rewrite restarts its accounting slice); the burst ends within one tick.
    pub fn limit(&self) -> f64 {
        if self.bursting {
            self.spec.burst
        } else {
            self.spec.baseline
        }
    }

    /// Seconds a full bucket lasts at the burst rate.
    pub fn duration(&self) -> f64 {
        let s = self.spec;
        if s.burst > s.baseline {
            s.capacity / (s.burst - s.baseline)
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gp2_100g() -> BucketSpec {
        BucketSpec {
            burst: 3000.0,
            baseline: 300.0,
            capacity: 5.4e6,
            refill: 300.0,
        }
    }

    /// Running flat out: the burst lasts capacity / (burst - baseline), AWS's own formula.
    #[test]
    fn a_full_gp2_bucket_lasts_as_aws_says() {
        let mut b = Bucket::new(gp2_100g());
        let tick = 0.1;
        let mut t = 0.0;
        while b.limit() == 3000.0 {
            b.account(b.limit() * tick, tick);
            t += tick;
        }
        let expect = 5.4e6 / 2700.0;
        assert!((t - expect).abs() <= tick * 1.5, "{t} vs {expect}");
        assert_eq!(b.limit(), 300.0);
    }

    /// Idle, gp2 earns its baseline rate; at the baseline it neither earns nor spends.
    #[test]
    fn credits_come_back_below_the_baseline_only() {
        let mut b = Bucket::new(gp2_100g());
        b.balance = 0.0;
        b.account(300.0, 1.0);
        assert_eq!(b.balance, 0.0);
        b.account(0.0, 10.0);
        assert_eq!(b.balance, 3000.0);
        b.account(150.0, 1.0);
        assert_eq!(b.balance, 3150.0);
        b.account(3000.0, 1.0);
        assert_eq!(b.balance, 450.0);
        b.account(0.0, 1e9);
        assert_eq!(b.balance, 5.4e6, "never above capacity");
    }

    /// At the baseline, ticks above and below it cancel out: no credits leak from jitter.
    #[test]
    fn jitter_around_the_baseline_earns_nothing() {
        let mut b = Bucket::new(gp2_100g());
        b.account(5.4e6 + 300.0, 1.0);
        assert_eq!((b.balance, b.limit()), (0.0, 300.0));
        for i in 0..1000 {
            let used = if i % 2 == 0 { 20.0 } else { 40.0 };
            b.account(used, 0.1);
            assert_eq!(b.limit(), 300.0, "tick {i}: balance {}", b.balance);
        }
        assert!(b.balance.abs() <= 10.0, "{}", b.balance);
    }
}
