//! Offline solvers. `ik`: analytic two-bone inverse kinematics.
pub mod ik;
