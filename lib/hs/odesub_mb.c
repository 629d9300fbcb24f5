// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Planar multibody ODE substructures: bodies (x, y, angle), revolute and
 * prismatic joints, springs and dampers, hung from a DOF of the model
 * (the "base", body -1, moving along x), integrated as lib/ode's
 * mechanism DAE (rths/ode_mech.h) in I3, SI2 or SI1.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rths/hs_odesub.h>

#include "hs/linalg.h"
#include "hs/odesub_impl.h"

#define MAXB RTHS_HS_MB_MAX_BODIES
#define MAXJ RTHS_HS_MB_MAX_JOINTS
#define MAXS RTHS_HS_MB_MAX_SPRINGS

struct mb {
	struct rths_hs_odesub *s;	/* its input */
	size_t nb, nj, ns, nq, nc;
	struct rths_hs_mb_body b[MAXB];
	struct rths_hs_mb_joint j[MAXJ];
	struct rths_hs_mb_spring sp[MAXS];
	double n0[MAXJ][2], th0[MAXJ], d0[MAXJ];	/* prismatic */
	double g;
	enum rths_ode_mech_form form;
	struct rths_ode_mech mech;
	struct rths_ode_mech_dae *dae;
	/* the restart's projection and the drift: no allocation per step */
	struct rths_ode_mech_ws *ws;
	/* q, v, lambda, W (nq x nq), Y, Yp */
	double *q, *v, *lam, *W, *Y, *Yp, *q1, *v1, *atol;
	double impulse;		/* x-momentum the base gave at the restart */
	/* energy balance of the current step */
	double t_prev, p_prev, work;
	double drift_pos, drift_vel, e_err, e_max, e_sum;
};

/* Pose of body @b (-1: the base at u_b). */
static void pose(const struct mb *mb, int b, const double *q, double ub,
		 double r[2], double *th)
{
	(void)mb;
	if (b < 0) {
		r[0] = ub;
		r[1] = 0;
		*th = 0;
	} else {
		r[0] = q[3 * b];
		r[1] = q[3 * b + 1];
		*th = q[3 * b + 2];
	}
}

/* A body point and its derivative along the body's angle. */
static void point(const double r[2], double th, const double s[2],
		  double P[2], double dP[2])
{
	double c = cos(th), sn = sin(th);
	double rs0 = c * s[0] - sn * s[1], rs1 = sn * s[0] + c * s[1];

	P[0] = r[0] + rs0;
	P[1] = r[1] + rs1;
	dP[0] = -rs1;
	dP[1] = rs0;
}

static double base_ub(const struct mb *mb, double t)
{
	double ub, ag;

	rths_hs_odesub_input_at(mb->s, t, &ub, &ag);
	return ub;
}

static double base_ag(const struct mb *mb, double t)
{
	double ub, ag;

	rths_hs_odesub_input_at(mb->s, t, &ub, &ag);
	return ag;
}

/* Velocity of a point of body @b. */
static void point_vel(int b, const double *v, double vb, const double dP[2],
		      double V[2])
{
	if (b < 0) {
		V[0] = vb;
		V[1] = 0;
		return;
	}
	V[0] = v[3 * b] + v[3 * b + 2] * dP[0];
	V[1] = v[3 * b + 1] + v[3 * b + 2] * dP[1];
}

static int mass(double t, const double *q, struct rths_mat *M, void *params)
{
	const struct mb *mb = params;

	(void)t;
	(void)q;
	for (size_t b = 0; b < mb->nb; b++) {
		RTHS_MAT(M, 3 * b, 3 * b) = mb->b[b].mass;
		RTHS_MAT(M, 3 * b + 1, 3 * b + 1) = mb->b[b].mass;
		RTHS_MAT(M, 3 * b + 2, 3 * b + 2) = mb->b[b].inertia;
	}
	return 0;
}

/* A spring's tension f, its unit vector a -> b and its rate; *power the
 * dissipation c l'^2. */
static void spring_state(const struct mb *mb, size_t k, const double *q,
			 const double *v, double ub, double vb, double e[2],
			 double *f, double dPa[2], double dPb[2],
			 double *diss, double *energy)
{
	const struct rths_hs_mb_spring *s = &mb->sp[k];
	double ra[2], rb[2], tha, thb, Pa[2], Pb[2], Va[2], Vb[2], l, ld;

	pose(mb, s->body_a, q, ub, ra, &tha);
	pose(mb, s->body_b, q, ub, rb, &thb);
	point(ra, tha, s->pa, Pa, dPa);
	point(rb, thb, s->pb, Pb, dPb);
	point_vel(s->body_a, v, vb, dPa, Va);
	point_vel(s->body_b, v, vb, dPb, Vb);
	e[0] = Pb[0] - Pa[0];
	e[1] = Pb[1] - Pa[1];
	l = hypot(e[0], e[1]);
	if (l > 0) {
		e[0] /= l;
		e[1] /= l;
	}
	ld = e[0] * (Vb[0] - Va[0]) + e[1] * (Vb[1] - Va[1]);
	*f = s->k * (l - s->length) + s->c * ld;
	if (diss)
		*diss = s->c * ld * ld;
	if (energy)
		*energy = 0.5 * s->k * (l - s->length) * (l - s->length);
}

static void add_gen(double *F, int b, double fx, double fy, const double dP[2])
{
	if (b < 0)
		return;
	F[3 * b] += fx;
	F[3 * b + 1] += fy;
	F[3 * b + 2] += dP[0] * fx + dP[1] * fy;
}

/* Generalized forces; *fbase the springs' force on the base along x. */
static void forces(const struct mb *mb, double t, const double *q,
		   const double *v, double *F, double *fbase)
{
	double ub = base_ub(mb, t), ag = base_ag(mb, t);
	double vb = rths_hs_odesub_vb_at(mb->s, t);

	*fbase = 0;
	for (size_t b = 0; b < mb->nb; b++) {
		F[3 * b] = -mb->b[b].mass * ag;
		F[3 * b + 1] = -mb->b[b].mass * mb->g;
		F[3 * b + 2] = 0;
	}
	for (size_t k = 0; k < mb->ns; k++) {
		const struct rths_hs_mb_spring *s = &mb->sp[k];
		double e[2], f, dPa[2], dPb[2];

		spring_state(mb, k, q, v, ub, vb, e, &f, dPa, dPb, NULL,
			     NULL);
		/* tension pulls b towards a and a towards b */
		add_gen(F, s->body_b, -f * e[0], -f * e[1], dPb);
		add_gen(F, s->body_a, f * e[0], f * e[1], dPa);
		if (s->body_a < 0)
			*fbase += f * e[0];
		if (s->body_b < 0)
			*fbase -= f * e[0];
	}
}

static int force_cb(double t, const double *q, const double *v, double *F,
		    void *params)
{
	double fb;

	forces(params, t, q, v, F, &fb);
	return 0;
}

/*
 * Constraints at base position @ub: Phi (nc), Phi_q (nc x nq, may be
 * NULL) and dPhi/du_b (nc, may be NULL).
 */
static void constraints(const struct mb *mb, const double *q, double ub,
			double *phi, struct rths_mat *G, double *phi_u)
{
	size_t row = 0;

	for (size_t k = 0; k < mb->nj; k++) {
		const struct rths_hs_mb_joint *j = &mb->j[k];
		int a = j->body_a, b = j->body_b;
		double ra[2], rb[2], tha, thb, Pa[2], Pb[2], dPa[2], dPb[2];
		double su = (b < 0) - (a < 0);

		pose(mb, a, q, ub, ra, &tha);
		pose(mb, b, q, ub, rb, &thb);
		point(ra, tha, j->pa, Pa, dPa);
		point(rb, thb, j->pb, Pb, dPb);
		if (j->kind == RTHS_HS_MB_REVOLUTE) {
			phi[row] = Pb[0] - Pa[0];
			phi[row + 1] = Pb[1] - Pa[1];
			if (phi_u) {
				phi_u[row] = su;
				phi_u[row + 1] = 0;
			}
			for (int d = 0; G && d < 2; d++) {
				if (b >= 0) {
					RTHS_MAT(G, row + d, 3 * b + d) += 1;
					RTHS_MAT(G, row + d, 3 * b + 2) += dPb[d];
				}
				if (a >= 0) {
					RTHS_MAT(G, row + d, 3 * a + d) -= 1;
					RTHS_MAT(G, row + d, 3 * a + 2) -= dPa[d];
				}
			}
		} else {
			double c = cos(tha), sn = sin(tha);
			double n[2] = { c * mb->n0[k][0] - sn * mb->n0[k][1],
					sn * mb->n0[k][0] + c * mb->n0[k][1] };
			double dn[2] = { -n[1], n[0] };
			double d[2] = { Pb[0] - Pa[0], Pb[1] - Pa[1] };

			phi[row] = thb - tha - mb->th0[k];
			phi[row + 1] = n[0] * d[0] + n[1] * d[1] - mb->d0[k];
			if (phi_u) {
				phi_u[row] = 0;
				phi_u[row + 1] = n[0] * su;
			}
			if (G && b >= 0) {
				RTHS_MAT(G, row, 3 * b + 2) += 1;
				RTHS_MAT(G, row + 1, 3 * b) += n[0];
				RTHS_MAT(G, row + 1, 3 * b + 1) += n[1];
				RTHS_MAT(G, row + 1, 3 * b + 2) +=
					n[0] * dPb[0] + n[1] * dPb[1];
			}
			if (G && a >= 0) {
				RTHS_MAT(G, row, 3 * a + 2) -= 1;
				RTHS_MAT(G, row + 1, 3 * a) -= n[0];
				RTHS_MAT(G, row + 1, 3 * a + 1) -= n[1];
				RTHS_MAT(G, row + 1, 3 * a + 2) +=
					dn[0] * d[0] + dn[1] * d[1] -
					n[0] * dPa[0] - n[1] * dPa[1];
			}
		}
		row += 2;
	}
}

static int phi_cb(double t, const double *q, double *phi, void *params)
{
	const struct mb *mb = params;

	constraints(mb, q, base_ub(mb, t), phi, NULL, NULL);
	return 0;
}

static int phi_q_cb(double t, const double *q, struct rths_mat *G,
		    void *params)
{
	const struct mb *mb = params;
	double phi[2 * MAXJ];

	constraints(mb, q, base_ub(mb, t), phi, G, NULL);
	return 0;
}

static int phi_t_cb(double t, const double *q, double *phi_t, void *params)
{
	const struct mb *mb = params;
	double phi[2 * MAXJ], vb = rths_hs_odesub_vb_at(mb->s, t);

	constraints(mb, q, base_ub(mb, t), phi, NULL, phi_t);
	for (size_t i = 0; i < mb->nc; i++)
		phi_t[i] *= vb;
	return 0;
}

/* Root of body @b's group (-1, the base, is index nb). */
static size_t group_of(size_t *up, size_t b)
{
	while (up[b] != b)
		b = up[b] = up[up[b]];
	return b;
}

/*
 * The initial pose must hold: a revolute joint's two points at one world
 * point (the projection would otherwise move the bodies without a word),
 * and every body tied to the base through joints or springs (a free body
 * falls away under gravity).  Prismatic joints take their references
 * from this pose, so they always hold.
 */
static int check_pose(const struct mb *mb, struct rths_error *err)
{
	size_t up[RTHS_HS_MB_MAX_BODIES + 1], nb = mb->nb;
	char path[48];

	for (size_t k = 0; k < mb->nj; k++) {
		const struct rths_hs_mb_joint *j = &mb->j[k];
		double ra[2], rb[2], tha, thb, Pa[2], Pb[2], dP[2], gap;

		if (j->kind != RTHS_HS_MB_REVOLUTE)
			continue;
		pose(mb, j->body_a, mb->q, 0, ra, &tha);
		pose(mb, j->body_b, mb->q, 0, rb, &thb);
		point(ra, tha, j->pa, Pa, dP);
		point(rb, thb, j->pb, Pb, dP);
		gap = hypot(Pb[0] - Pa[0], Pb[1] - Pa[1]);
		if (gap > RTHS_HS_MB_JOINT_GAP_MAX) {
			snprintf(path, sizeof(path), "joints[%zu].points", k);
			return rths_error_set(err, RTHS_E_CONFLICT, NULL, 0, path,
					      "joint %zu's points are %.3g m apart at rest ((%g, %g) on body %d, (%g, %g) on body %d): a revolute joint's points must meet at one point (within %g m); move the bodies or the points",
					      k, gap, Pa[0], Pa[1], j->body_a,
					      Pb[0], Pb[1], j->body_b,
					      RTHS_HS_MB_JOINT_GAP_MAX);
		}
	}
	for (size_t b = 0; b <= nb; b++)
		up[b] = b;
	for (size_t k = 0; k < mb->nj + mb->ns; k++) {
		int a = k < mb->nj ? mb->j[k].body_a : mb->sp[k - mb->nj].body_a;
		int b = k < mb->nj ? mb->j[k].body_b : mb->sp[k - mb->nj].body_b;

		up[group_of(up, a < 0 ? nb : (size_t)a)] =
			group_of(up, b < 0 ? nb : (size_t)b);
	}
	for (size_t b = 0; b < nb; b++)
		if (group_of(up, b) != group_of(up, nb)) {
			snprintf(path, sizeof(path), "bodies[%zu]", b);
			return rths_error_set(err, RTHS_E_CONFLICT, NULL, 0, path,
					      "body %zu is tied to the base by no joint or spring: it would fall away",
					      b);
		}
	return 0;
}

int rths_hs_odesub_new_multibody(struct rths_hs_odesub **out, int dof,
				 const struct rths_hs_mb_params *p,
				 struct rths_error *err)
{
	struct rths_hs_odesub *s;
	struct mb *mb;
	size_t nq, nc, dim;
	int r;

	if (!out || !p)
		return rths_error_set(err, EINVAL, NULL, 0, NULL,
				      "no substructure or no parameters");
	*out = NULL;
	if (dof < 0)
		return rths_error_set(err, RTHS_E_BAD_DOF, NULL, 0, "dof",
				      "a multibody system hangs from a DOF");
	if (p->n_bodies < 1 || p->n_bodies > MAXB || p->n_joints > MAXJ ||
	    p->n_springs > MAXS)
		return rths_error_set(err, RTHS_E_BAD_SHAPE, NULL, 0, "bodies",
				      "1 to %d bodies, up to %d joints and %d springs",
				      MAXB, MAXJ, MAXS);
	if (p->form != RTHS_ODE_MECH_I3 && p->form != RTHS_ODE_MECH_SI2 &&
	    p->form != RTHS_ODE_MECH_SI1)
		return rths_error_set(err, EINVAL, NULL, 0, "form",
				      "i3, si2 or si1");
	if (!(isfinite(p->gravity) && p->gravity >= 0))
		return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
				      "gravity", "%g: expected >= 0", p->gravity);
	for (size_t b = 0; b < p->n_bodies; b++)
		if (!(p->bodies[b].mass > 0 && isfinite(p->bodies[b].mass) &&
		      p->bodies[b].inertia > 0 &&
		      isfinite(p->bodies[b].inertia)))
			return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
					      "bodies",
					      "body %zu: mass and inertia must be positive",
					      b);
	for (size_t k = 0; k < p->n_joints + p->n_springs; k++) {
		int a, b;

		if (k < p->n_joints) {
			a = p->joints[k].body_a;
			b = p->joints[k].body_b;
		} else {
			a = p->springs[k - p->n_joints].body_a;
			b = p->springs[k - p->n_joints].body_b;
		}
		if (a < -1 || b < -1 || a >= (int)p->n_bodies ||
		    b >= (int)p->n_bodies || a == b)
			return rths_error_set(err, RTHS_E_BAD_DOF, NULL, 0,
					      k < p->n_joints ? "joints" : "springs",
					      "%s %zu joins bodies %d and %d: expected two different ones in -1 (the base) .. %zu",
					      k < p->n_joints ? "joint" : "spring",
					      k < p->n_joints ? k : k - p->n_joints,
					      a, b, p->n_bodies - 1);
		if (k < p->n_joints && p->joints[k].kind == RTHS_HS_MB_PRISMATIC &&
		    !(hypot(p->joints[k].axis[0], p->joints[k].axis[1]) > 0))
			return rths_error_set(err, RTHS_E_OUT_OF_RANGE, NULL, 0,
					      "joints",
					      "joint %zu: a prismatic joint needs an axis",
					      k);
	}
	nq = 3 * p->n_bodies;
	nc = 2 * p->n_joints;
	if (nc >= nq)
		return rths_error_set(err, RTHS_E_BAD_SHAPE, NULL, 0, "joints",
				      "%zu constraints on %zu coordinates leave nothing to move",
				      nc, nq);
	dim = 2 * nq + (p->form == RTHS_ODE_MECH_I3 ? nc : 2 * nc);
	s = calloc(1, sizeof(*s));
	mb = calloc(1, sizeof(*mb));
	if (!s || !mb) {
		free(s);
		free(mb);
		return rths_error_set(err, ENOMEM, NULL, 0, NULL,
				      "out of memory");
	}
	s->mb = mb;
	mb->s = s;
	s->kind = RTHS_HS_ODESUB_MULTIBODY;
	s->dof_i = dof;
	s->dof_j = -1;
	s->dim = dim;
	s->method = RTHS_ODE_GSTIFF;
	rths_ode_control_default(&s->ctl);
	s->input = RTHS_HS_ODESUB_LINEAR;
	mb->nb = p->n_bodies;
	mb->nj = p->n_joints;
	mb->ns = p->n_springs;
	mb->nq = nq;
	mb->nc = nc;
	mb->g = p->gravity;
	mb->form = p->form;
	memcpy(mb->b, p->bodies, mb->nb * sizeof(*mb->b));
	if (mb->nj)
		memcpy(mb->j, p->joints, mb->nj * sizeof(*mb->j));
	if (mb->ns)
		memcpy(mb->sp, p->springs, mb->ns * sizeof(*mb->sp));
	/* buffers: y (dim), Y, Yp (dim), q, v, q1, v1 (nq), lam (nc), W */
	s->y = rths_zalloc(5 * dim + 4 * nq + nc + nq * nq, err);
	if (!s->y) {
		rths_hs_odesub_free(s);
		return -ENOMEM;
	}
	s->y_try = s->y + dim;
	mb->Y = s->y_try + dim;
	mb->Yp = mb->Y + dim;
	mb->q = mb->Yp + dim;
	mb->v = mb->q + nq;
	mb->q1 = mb->v + nq;
	mb->v1 = mb->q1 + nq;
	mb->lam = mb->v1 + nq;
	mb->W = mb->lam + nc;
	mb->atol = mb->W + nq * nq;
	for (size_t b = 0; b < mb->nb; b++) {
		mb->q[3 * b] = mb->b[b].x;
		mb->q[3 * b + 1] = mb->b[b].y;
		mb->q[3 * b + 2] = mb->b[b].angle;
	}
	r = check_pose(mb, err);
	if (r < 0) {
		rths_hs_odesub_free(s);
		return r;
	}
	/* The prismatic joints' references and the springs' free lengths
	 * from the initial pose. */
	for (size_t k = 0; k < mb->nj; k++) {
		struct rths_hs_mb_joint *j = &mb->j[k];
		double ra[2], rb[2], tha, thb, Pa[2], Pb[2], dP[2], n, c, sn;

		if (j->kind != RTHS_HS_MB_PRISMATIC)
			continue;
		n = hypot(j->axis[0], j->axis[1]);
		mb->n0[k][0] = -j->axis[1] / n;
		mb->n0[k][1] = j->axis[0] / n;
		pose(mb, j->body_a, mb->q, 0, ra, &tha);
		pose(mb, j->body_b, mb->q, 0, rb, &thb);
		point(ra, tha, j->pa, Pa, dP);
		point(rb, thb, j->pb, Pb, dP);
		mb->th0[k] = thb - tha;
		c = cos(tha);
		sn = sin(tha);
		mb->d0[k] = (c * mb->n0[k][0] - sn * mb->n0[k][1]) *
			    (Pb[0] - Pa[0]) +
			    (sn * mb->n0[k][0] + c * mb->n0[k][1]) *
			    (Pb[1] - Pa[1]);
	}
	for (size_t k = 0; k < mb->ns; k++) {
		struct rths_hs_mb_spring *sp = &mb->sp[k];
		double ra[2], rb[2], tha, thb, Pa[2], Pb[2], dP[2];

		if (sp->length >= 0)
			continue;
		pose(mb, sp->body_a, mb->q, 0, ra, &tha);
		pose(mb, sp->body_b, mb->q, 0, rb, &thb);
		point(ra, tha, sp->pa, Pa, dP);
		point(rb, thb, sp->pb, Pb, dP);
		sp->length = hypot(Pb[0] - Pa[0], Pb[1] - Pa[1]);
	}
	mb->mech = (struct rths_ode_mech){
		.nq = nq, .nc = nc, .mass = mass, .force = force_cb,
		.phi = phi_cb, .phi_q = phi_q_cb, .phi_t = phi_t_cb,
		.params = mb,
	};
	r = rths_ode_mech_dae_new(&mb->mech, mb->form, &mb->dae);
	if (r == 0)
		r = rths_ode_mech_ws_new(&mb->mech, &mb->ws);
	if (r < 0) {
		rths_hs_odesub_free(s);
		return rths_error_set(err, r, NULL, 0, NULL,
				      "cannot build the mechanism's DAE: %s",
				      rths_strerror(r));
	}
	*out = s;
	return 0;
}

void rths_hs_mb_free(struct mb *mb)
{
	if (!mb)
		return;
	rths_ode_mech_dae_free(mb->dae);
	rths_ode_mech_ws_free(mb->ws);
	free(mb);
}

/*
 * SI2's second multiplier mu is zero on the exact solution and serves
 * only the velocity constraint: rounding is all it ever holds, and at
 * the user's atol the start's consistency check (the Newton correction
 * of a step of about atol / |y'|) counts that rounding amplified by the
 * index as an inconsistency.  It gets 1e-6 (m, its unit times s).
 */
const double *rths_hs_mb_atol(struct mb *mb, double atol)
{
	size_t n = rths_ode_mech_dae_system(mb->dae)->dim;

	for (size_t i = 0; i < n; i++)
		mb->atol[i] = atol;
	if (mb->form == RTHS_ODE_MECH_SI2)
		for (size_t i = 2 * mb->nq + mb->nc; i < n; i++)
			mb->atol[i] = fmax(atol, 1e-6);
	return mb->atol;
}

const struct rths_ode_system *rths_hs_mb_system(const struct mb *mb)
{
	return rths_ode_mech_dae_system(mb->dae);
}

const double *rths_hs_odesub_mb_q(const struct rths_hs_odesub *s)
{
	return s->mb ? s->mb->q : NULL;
}

const double *rths_hs_odesub_mb_v(const struct rths_hs_odesub *s)
{
	return s->mb ? s->mb->v : NULL;
}

/* The force on the base along x: the joints' reactions and springs. */
static double base_force(const struct mb *mb, double t, const double *q,
			 const double *v, const double *lam)
{
	double phi[2 * MAXJ], phi_u[2 * MAXJ], F[3 * MAXB], fb;

	constraints(mb, q, base_ub(mb, t), phi, NULL, phi_u);
	forces(mb, t, q, v, F, &fb);
	for (size_t i = 0; i < mb->nc; i++)
		fb -= phi_u[i] * lam[i];
	return fb;
}

static double energy(const struct mb *mb, double t, const double *q,
		     const double *v, double *diss)
{
	double e = 0, ub = base_ub(mb, t), vb = rths_hs_odesub_vb_at(mb->s, t);

	*diss = 0;
	for (size_t b = 0; b < mb->nb; b++)
		e += 0.5 * mb->b[b].mass * (v[3 * b] * v[3 * b] +
					    v[3 * b + 1] * v[3 * b + 1]) +
		     0.5 * mb->b[b].inertia * v[3 * b + 2] * v[3 * b + 2] +
		     mb->b[b].mass * mb->g * q[3 * b + 1];
	for (size_t k = 0; k < mb->ns; k++) {
		double ed[2], f, dPa[2], dPb[2], d, es;

		spring_state(mb, k, q, v, ub, vb, ed, &f, dPa, dPb, &d,
			     &es);
		e += es;
		*diss += d;
	}
	return e;
}

/* Power into the mechanism (base and ground motion) less dissipation. */
static double net_power(const struct mb *mb, double t, const double *q,
			const double *v, const double *lam)
{
	double diss, p = -base_force(mb, t, q, v, lam) *
				 rths_hs_odesub_vb_at(mb->s, t);
	double ag = base_ag(mb, t);

	energy(mb, t, q, v, &diss);
	for (size_t b = 0; b < mb->nb; b++)
		p -= mb->b[b].mass * ag * v[3 * b];
	return p - diss;
}

/* q, v, lambda of the DAE state at the solver's current point. */
static void unpack(struct mb *mb, const double *Y)
{
	rths_ode_get_state(mb->s->ode, NULL, mb->Yp);
	rths_ode_mech_dae_unpack(mb->dae, Y, mb->Yp, mb->q1, mb->v1, mb->lam);
}

static void after_step(struct rths_hs_odesub *s, double t, const double *Y)
{
	struct mb *mb = s->mb;
	double p;

	unpack(mb, Y);
	p = net_power(mb, t, mb->q1, mb->v1, mb->lam);
	mb->work += 0.5 * (p + mb->p_prev) * (t - mb->t_prev);
	mb->p_prev = p;
	mb->t_prev = t;
}

/* Project onto the constraints at s->t0 (base at ub0, moving at vb),
 * mass-weighted, and restart the DAE there. */
static int restart(struct rths_hs_odesub *s, struct rths_error *err)
{
	struct mb *mb = s->mb;
	struct rths_mat Mv = { .data = mb->W, .rows = mb->nq, .cols = mb->nq,
			       .ld = mb->nq };
	int r;

	memset(mb->W, 0, mb->nq * mb->nq * sizeof(double));
	mass(s->t0, mb->q, &Mv, mb);
	const char *what = "projection";

	r = rths_ode_mech_project_ws(&mb->mech, s->t0, mb->W, mb->q, mb->v,
				     mb->q1, mb->v1, mb->ws);
	if (r == 0) {
		what = "initial values";
		r = rths_ode_mech_dae_initial(mb->dae, s->t0, mb->q1, mb->v1,
					      mb->Y, mb->Yp);
	}
	if (r == 0) {
		what = "start";
		r = rths_ode_init(s->ode, s->t0, mb->Y, mb->Yp);
	}
	if (r < 0)
		return rths_error_set(err, r, NULL, 0, "form",
				      "no consistent start (%s) of the %s DAE at t = %g s: %s",
				      what, rths_ode_mech_form_name(mb->form),
				      s->t0, rths_strerror(r));
	mb->impulse = 0;
	for (size_t b = 0; b < mb->nb; b++)
		mb->impulse += mb->b[b].mass * (mb->v1[3 * b] - mb->v[3 * b]);
	memcpy(mb->q, mb->q1, mb->nq * sizeof(double));
	memcpy(mb->v, mb->v1, mb->nq * sizeof(double));
	memcpy(s->y, mb->Y, s->dim * sizeof(double));
	return 0;
}

int rths_hs_mb_start(struct rths_hs_odesub *s, struct rths_error *err)
{
	struct mb *mb = s->mb;
	double diss;
	int r;

	for (size_t b = 0; b < mb->nb; b++) {
		mb->q[3 * b] = mb->b[b].x + s->ub0;
		mb->q[3 * b + 1] = mb->b[b].y;
		mb->q[3 * b + 2] = mb->b[b].angle;
		mb->v[3 * b] = s->vb;
		mb->v[3 * b + 1] = 0;
		mb->v[3 * b + 2] = 0;
	}
	r = restart(s, err);
	if (r < 0)
		return r;
	rths_ode_mech_dae_unpack(mb->dae, mb->Y, mb->Yp, NULL, NULL, mb->lam);
	s->force = base_force(mb, s->t0, mb->q, mb->v, mb->lam);
	mb->drift_pos = mb->drift_vel = mb->e_err = mb->e_sum = 0;
	mb->e_max = fabs(energy(mb, s->t0, mb->q, mb->v, &diss));
	return 0;
}

int rths_hs_mb_step(struct rths_hs_odesub *s, double *force,
		    struct rths_error *err)
{
	struct mb *mb = s->mb;
	double e0, e1, diss;
	int r = restart(s, err);

	if (r < 0)
		return r;
	rths_ode_mech_dae_unpack(mb->dae, mb->Y, mb->Yp, NULL, NULL, mb->lam);
	e0 = energy(mb, s->t0, mb->q, mb->v, &diss);
	mb->work = 0;
	mb->t_prev = s->t0;
	mb->p_prev = net_power(mb, s->t0, mb->q, mb->v, mb->lam);
	memcpy(s->y_try, mb->Y, s->dim * sizeof(double));
	r = rths_hs_odesub_integrate(s, s->y_try, after_step, err);
	if (r < 0)
		return r;
	memcpy(s->y, s->y_try, s->dim * sizeof(double));
	unpack(mb, s->y);
	memcpy(mb->q, mb->q1, mb->nq * sizeof(double));
	memcpy(mb->v, mb->v1, mb->nq * sizeof(double));
	/* The base's velocity jumps at t0, and the momentum it gives the
	 * mechanism there is part of the step's interface force: spread
	 * over the step, it is the force the base's acceleration asks
	 * (without it a rigidly joined mass would not weigh on the DOF). */
	*force = base_force(mb, s->t1, mb->q, mb->v, mb->lam) -
		 mb->impulse / (s->t1 - s->t0);
	e1 = energy(mb, s->t1, mb->q, mb->v, &diss);
	mb->e_sum += e1 - e0 - mb->work;
	mb->e_err = fmax(mb->e_err, fabs(mb->e_sum));
	mb->e_max = fmax(mb->e_max, fabs(e1));
	return 0;
}

void rths_hs_mb_work_step(struct rths_hs_odesub *s)
{
	struct mb *mb = s->mb;
	double pos, vel;

	if (rths_ode_mech_drift_ws(&mb->mech, s->t1, mb->q, mb->v, &pos, &vel,
				   mb->ws) == 0) {
		mb->drift_pos = fmax(mb->drift_pos, pos);
		mb->drift_vel = fmax(mb->drift_vel, vel);
	}
}

void rths_hs_mb_work(const struct rths_hs_odesub *s,
		     struct rths_hs_odesub_work *w)
{
	w->drift_pos = s->mb->drift_pos;
	w->drift_vel = s->mb->drift_vel;
	w->energy_error = s->mb->e_err;
	w->energy_max = s->mb->e_max;
}
