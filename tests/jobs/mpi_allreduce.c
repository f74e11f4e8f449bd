// SPDX-License-Identifier: MIT
/*
 * A small MPI job for the lab's job drills (scenarios/job-mpi.yaml): ITERS allreduces of SIZE
 * bytes, a fixed count so that every rank agrees on when to stop (a time-based loop can hang
 * when ranks disagree). Rank 0 prints, after every PRINT_MS or so, one line a drill's
 * throughput regex reads:
 *
 *   iter 120 of 2000: 5.12 MB/s
 *
 * (bytes reduced per second on rank 0: SIZE per allreduce). Exit 0 when all are done.
 *
 * COMPUTE_MS is a training step's compute: every rank sleeps that long after each allreduce, as
 * a data-parallel job's CPU does while its GPU computes the next gradients. It also keeps the lab
 * usable: a rank waiting inside MPI polls its CPU flat out (Open MPI's progress loop, over UCX
 * or ob1), and under QEMU's TCG each such rank costs the host a whole core.
 *
 *   mpi_allreduce [ITERS [SIZE [PRINT_MS [COMPUTE_MS]]]]   (defaults 100000, 1 MiB, 1000, 0)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 100000;
	long size = argc > 2 ? atol(argv[2]) : 1 << 20;
	double print_s = (argc > 3 ? atol(argv[3]) : 1000) / 1000.0;
	long compute_ms = argc > 4 ? atol(argv[4]) : 0;
	struct timespec compute = {compute_ms / 1000, compute_ms % 1000 * 1000000L};
	double t_last, now, bytes = 0;
	int rank, nranks;
	float *in, *out;
	long i, n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (iters < 1 || size < 4 || print_s <= 0 || compute_ms < 0 || compute_ms > 60000) {
		if (!rank)
			fprintf(stderr,
				"usage: mpi_allreduce [ITERS [SIZE [PRINT_MS [COMPUTE_MS]]]]"
				" (COMPUTE_MS 0..60000)\n");
		MPI_Finalize();
		return 2;
	}
	n = size / (long)sizeof(float);
	in = malloc((size_t)n * sizeof(float));
	out = malloc((size_t)n * sizeof(float));
	if (!in || !out)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < n; i++)
		in[i] = (float)rank;
	if (!rank)
		printf("allreduce: %d ranks, %ld iterations of %ld bytes, %ld ms of compute each\n",
		       nranks, iters, size, compute_ms);
	fflush(stdout);
	t_last = MPI_Wtime();
	for (i = 1; i <= iters; i++) {
		MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		bytes += (double)n * sizeof(float);
		if (compute_ms)
			nanosleep(&compute, NULL);
		now = MPI_Wtime();
		if (!rank && (now - t_last >= print_s || i == iters)) {
			printf("iter %ld of %ld: %.2f MB/s\n", i, iters,
			       bytes / (now - t_last) / 1e6);
			fflush(stdout);
			bytes = 0;
			t_last = now;
		}
	}
	if (!rank)
		printf("allreduce: done, sum check %s\n",
		       out[0] == (float)nranks * (nranks - 1) / 2 ? "ok" : "WRONG");
	free(in);
	free(out);
	MPI_Finalize();
	return 0;
}
