//! Offline solvers. `ik`: analytic two-bone inverse kinematics; `physics`:
//! springs and Verlet chains simulated into seamless loops.
pub mod ik;
pub mod physics;
